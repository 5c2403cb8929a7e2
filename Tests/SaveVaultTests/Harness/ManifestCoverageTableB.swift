@testable import SaveVault

extension CoverageGame {
  /// Games of the fixture added on 2026-12-03 (sampled across the whole manifest), from
  /// "ARK BOX Unlimited" to "Everything", with what is placed for each.
  static let tableB: [CoverageGame] = [
    CoverageGame(
      "ARK BOX Unlimited", 553_780, "ARK BOX Unlimited", .proton,
      [
        P("<base>/**/*.box", ["boxes/my.box"]),
        P("<winLocalAppData>/ARKBOX/**/*.box", ["ARKBOX/slot1.box", "ARKBOX/user/deep/slot2.box"]),
      ]),
    CoverageGame(
      "ASCII Attack", 370_490, "ASCII Attack", .proton,
      [
        P("<base>/Profiles/<storeUserId>/profile.sav", ["Profiles/<storeUserId>/profile.sav"])
      ]),
    CoverageGame(
      "ASDAD: All-Stars Dungeons and Diamonds", 364_190, "ASDAD", .proton,
      [
        P("<base>/savedata/save.dat", ["savedata/save.dat"])
      ]),
    CoverageGame(
      "ASKA", 1_898_300, "ASKA", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Sand Sailor Studio/Aska/data",
          ["AppData/LocalLow/Sand Sailor Studio/Aska/data/world.json"])
      ]),
    CoverageGame(
      "ASTRAL", 703_600, "ASTRAL", .native,
      [
        P("<home>/.config/ASTRAL/Default", [".config/ASTRAL/Default/Local Storage/leveldb.log"])
      ]),
    CoverageGame(
      "ATOM RPG", 552_620, "ATOM RPG", .proton,
      [
        P("<home>/AppData/LocalLow/AtomTeam/Atom", ["AppData/LocalLow/AtomTeam/Atom/Saves/save1.as"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "ATOM RPG Trudograd", 1_139_940, "ATOM RPG Trudograd", .native,
      [
        P("<xdgConfig>/unity3d/AtomTeam/Atom_Trudograd/*.as", ["unity3d/AtomTeam/Atom_Trudograd/quick.as"]),
        P("<xdgConfig>/unity3d/AtomTeam/Atom_Trudograd/prefs", ["unity3d/AtomTeam/Atom_Trudograd/prefs"]),
      ]),
    CoverageGame(
      "ATRI -My Dear Moments-", 1_230_140, "ATRI -My Dear Moments-", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/1230140/remote", ["userdata/<storeUserId>/1230140/remote/save00.dat"]
        )
      ]),
    CoverageGame(
      "ATV Quadracer Ultimate", 502_350, "ATV Quadracer Ultimate", .proton,
      [
        P("<winAppData>/ATV Quadracer Ultimate", ["ATV Quadracer Ultimate/profile.dat"])
      ]),
    CoverageGame(
      "Army of Tentacles: (Not) A Cthulhu Dating Sim", 427_930, "Army of Tentacles NACDS", .proton,
      [
        P("<base>/game/saves/persistent", ["game/saves/persistent"]),
        P(
          "<winAppData>/renpy/Army of Tentacles Ren'Py V1-1355529154/*.save",
          ["renpy/Army of Tentacles Ren'Py V1-1355529154/1-1-LT1.save"]),
        P(
          "<winAppData>/renpy/Army of Tentacles Ren'Py V1-1355529154/persistent",
          ["renpy/Army of Tentacles Ren'Py V1-1355529154/persistent"]),
      ]),
    CoverageGame(
      "Arrow Tourney", 1_028_440, "ArrowTourney", .native,
      [
        P("<base>/game/saves", ["game/saves/1-1-LT1.save"]),
        P("<home>/.renpy/ArrowTourney-1563011753", [".renpy/ArrowTourney-1563011753/persistent"]),
      ]),
    CoverageGame(
      "Arrowpoint", 755_560, "Arrowpoint", .proton,
      [
        P("<base>/SavesDir/*.sav", ["SavesDir/slot1.sav"])
      ]),
    CoverageGame(
      "Ars Fabulae", 1_164_060, "Ars Fabulae", .proton,
      [
        P(
          "<winLocalAppData>/ArsFabulae/Saved/SaveGames/Full/<storeUserId>/*.sav",
          ["ArsFabulae/Saved/SaveGames/Full/<storeUserId>/Chapter1.sav"])
      ]),
    CoverageGame(
      "Arsenal Demon", 1_149_860, "Arsenal Demon", .native,
      [
        P("<base>/**/campaign.bin", ["data/campaign.bin"]),
        P("<base>/**/settings.bin", ["settings.bin"]),
      ]),
    CoverageGame(
      "Arson and Plunder: Unleashed", 293_600, "Arson And Plunder", .proton,
      [
        P(
          "<winAppData>/ArsonAndPlunderUnleashed/ArsonAndPlunderSave.dat",
          ["ArsonAndPlunderUnleashed/ArsonAndPlunderSave.dat"])
      ]),
    CoverageGame(
      "Art Shop Simulator", 3_038_580, "Art Shop Simulator", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Lovheim Studios/Art Shop Simulator",
          ["AppData/LocalLow/Lovheim Studios/Art Shop Simulator/SaveFile.es3"])
      ]),
    CoverageGame(
      "Art Sqool", 953_300, "ART SQOOL", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Julian Glander/ART SQOOL",
          ["AppData/LocalLow/Julian Glander/ART SQOOL/sqool.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Art of Murder - Cards of Destiny", 836_770, "Art of Murder - Cards of Destiny", .proton,
      [
        P("<winDocuments>/Art of Murder - Cards of Destiny", ["Art of Murder - Cards of Destiny/save01.sav"]),
        P(
          "<winDocuments>/Art of Murder - Cards of Destiny/game.setup",
          ["Art of Murder - Cards of Destiny/game.setup"]),
      ]),
    CoverageGame(
      "Art of Murder - FBI Confidential", 809_000, "Art of Murder - FBI Confidential", .proton,
      [
        P(
          "<home>/Saved Games/Art of Murder FBI Confidential",
          ["Saved Games/Art of Murder FBI Confidential/slot1.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Art of Rally", 550_320, "artofrally", .native,
      [
        P(
          "<xdgConfig>/unity3d/Funselektor Labs/art of rally/cloud/*.txt",
          ["unity3d/Funselektor Labs/art of rally/cloud/stats.txt"]),
        P(
          "<xdgConfig>/unity3d/Funselektor Labs/art of rally/cloud/SaveGame*.json",
          ["unity3d/Funselektor Labs/art of rally/cloud/SaveGame0.json"]),
        P(
          "<xdgConfig>/unity3d/Funselektor Labs/art of rally/cloud/career*",
          ["unity3d/Funselektor Labs/art of rally/cloud/career_1"]),
        P(
          "<xdgConfig>/unity3d/Funselektor Labs/art of rally/prefs",
          ["unity3d/Funselektor Labs/art of rally/prefs"]),
      ]),
    CoverageGame(
      "Bionic Heart", 314_200, "Bionic Heart", .native,
      [
        P("<base>/game/**/*.save", ["game/saves/1-1-LT1.save"])
      ]),
    CoverageGame(
      "Bionic Heart 2", 317_290, "Bionic Heart 2", .proton,
      [
        P("<base>/game/saves/*.save", ["game/saves/1-2-LT1.save"]),
        P("<base>/game/saves/persistent", ["game/saves/persistent"]),
        P("<winAppData>/RenPy/Bionic_Heart_2/*.save", ["RenPy/Bionic_Heart_2/1-2-LT1.save"]),
        P("<winAppData>/RenPy/Bionic_Heart_2/persistent", ["RenPy/Bionic_Heart_2/persistent"]),
      ]),
    CoverageGame(
      "Bioprototype", 3_689_520, "Bioprototype", .proton,
      [
        P(
          "<home>/AppData/LocalLow/EmpromGame/Bioprototype/86850130",
          ["AppData/LocalLow/EmpromGame/Bioprototype/86850130/save.json"])
      ]),
    CoverageGame(
      "Biorhythm", 1_033_340, "biorhythm", .proton,
      [
        P(
          "<home>/AppData/LocalLow/overfull/biorhythm/SteamUserData/<storeUserId>/*.gd",
          ["AppData/LocalLow/overfull/biorhythm/SteamUserData/<storeUserId>/progress.gd"])
      ]),
    CoverageGame(
      "Bird Assassin", 312_010, "Bird Assassin", .proton,
      [
        P(
          "<winDocuments>/SavedGames/Bird Assassin/Bird Assassin Data/AllPlayers/Game*.dat",
          ["SavedGames/Bird Assassin/Bird Assassin Data/AllPlayers/Game1.dat"]),
        P(
          "<winDocuments>/SavedGames/Bird Assassin/Bird Assassin Data/AllPlayers/Options.dat",
          ["SavedGames/Bird Assassin/Bird Assassin Data/AllPlayers/Options.dat"]),
      ]),
    CoverageGame(
      "Bird Game", 791_700, "Bird Game", .native,
      [
        P(
          "<xdgConfig>/unity3d/Bryan Tabor/Bird Game/*save.save",
          ["unity3d/Bryan Tabor/Bird Game/birdsave.save"])
      ]),
    CoverageGame(
      "Birdcage", 2_158_550, "BIRDCAGE", .proton,
      [
        P("<winLocalAppData>/birdcage", ["birdcage/save.ini"])
      ]),
    CoverageGame(
      "Birth of Shadows", 401_170, "Birth of Shadows", .proton,
      [
        P("<winAppData>/Birth of Shadows/**/*.BoS*", ["Birth of Shadows/Save/Slot1.BoSsave"])
      ]),
    CoverageGame(
      "Birth of a Hunter", 1_027_480, "Birth of a Hunter", .proton,
      [
        P("<winLocalAppData>/BoaH/RECORDS_DATA.BoaH", ["BoaH/RECORDS_DATA.BoaH"]),
        P("<winLocalAppData>/BoaH/SETTINGS_DATA.BoaH", ["BoaH/SETTINGS_DATA.BoaH"]),
      ]),
    CoverageGame(
      "Bit Blaster XL", 433_950, "Bit Blaster XL", .native,
      [
        P(
          "<home>/.config/unity3d/Nickervision Studios/Bit Blaster XL/prefs",
          [".config/unity3d/Nickervision Studios/Bit Blaster XL/prefs"])
      ]),
    CoverageGame(
      "Bit Dungeon II", 331_440, "bit Dungeon II", .proton,
      [
        P(
          "<winAppData>/com.kintogames.bitDungeonII/**/*.sol",
          ["com.kintogames.bitDungeonII/Local Store/#SharedObjects/bitDungeonII.swf/save.sol"])
      ]),
    CoverageGame(
      "Chess Arena-象棋竞技场", 712_880, "Chess Arena", .proton,
      [
        P("<winAppData>/Godot/app_userdata/Chess Arena/*.save", ["Godot/app_userdata/Chess Arena/game.save"])
      ]),
    CoverageGame(
      "Chess Cubed", 762_950, "Chess Cubed", .native,
      [
        P(
          "<xdgData>/DefaultSoftware/Chess Cubed/<storeUserId>",
          ["DefaultSoftware/Chess Cubed/<storeUserId>/progress.dat"])
      ]),
    CoverageGame(
      "Chess Survivors", 2_499_520, "Be My Horde", .proton,
      [
        P("<winAppData>/Godot/app_userdata/Chess Survivors", ["Godot/app_userdata/Chess Survivors/save.cfg"])
      ]),
    CoverageGame(
      "Chessmaster Challenge", 37_200, "Chessmaster", .proton,
      [
        P("<winAppData>/Chessmaster Challenge", ["Chessmaster Challenge/Users/player.cmu"])
      ]),
    CoverageGame(
      "Chester One", 348_800, "Chester One", .proton,
      [
        P(
          "<winDocuments>/SavedGames/Chester/Chester/AllPlayers",
          ["SavedGames/Chester/Chester/AllPlayers/Player1.sav"])
      ]),
    CoverageGame(
      "Chevalier Historie", 1_413_960, "Chevalier Historie", .proton,
      [
        P("<base>/Game.ini", ["Game.ini"]),
        P("<base>/Save", ["Save/Save01.rvdata2"]),
      ]),
    CoverageGame(
      "Chicken Assassin - Master of Humiliation", 489_610, "Chicken Assassin Reloaded", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Oneshark/ChickenAssassin/CASaveData.xml",
          ["AppData/LocalLow/Oneshark/ChickenAssassin/CASaveData.xml"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Chicken Invaders 3", 377_460, "Chicken Invaders 3", .proton,
      [
        P("<winProgramData>/InterAction studios/CI3", ["InterAction studios/CI3/ci3.hst"])
      ]),
    CoverageGame(
      "Chicken Invaders 4", 301_300, "Chicken Invaders 4", .native,
      [
        P("<home>/.IAdata/InterAction studios/CI4", [".IAdata/InterAction studios/CI4/ci4.hst"]),
        P(
          "<root>/userdata/<storeUserId>/301300/remote/steamcloud/CI4/*steam",
          ["userdata/<storeUserId>/301300/remote/steamcloud/CI4/profile.steam"]),
      ]),
    CoverageGame(
      "Dark Deception: Monsters & Mortals", 1_266_690, "Dark Deception Monsters & Mortals", .proton,
      [
        P(
          "<winLocalAppData>/DD_MnM/Saved/SaveGames/**/*.sav", ["DD_MnM/Saved/SaveGames/Profile/Progress.sav"]
        )
      ]),
    CoverageGame(
      "Dark Deity", 1_374_840, "Dark Deity", .proton,
      [
        P("<winLocalAppData>/Dark_Deity/Config.ini", ["Dark_Deity/Config.ini"]),
        P("<winLocalAppData>/Dark_Deity/Save*.ini", ["Dark_Deity/Save1.ini", "Dark_Deity/Save2.ini"]),
      ]),
    CoverageGame(
      "Dark Deity 2", 2_446_600, "Dark Deity 2", .proton,
      [
        P("<base>/options.ini", ["options.ini"]),
        P("<winLocalAppData>/DarkDeity2/*.ini", ["DarkDeity2/slot0.ini"]),
      ]),
    CoverageGame(
      "Dark Devotion", 718_590, "Dark Devotion", .proton,
      [
        P("<base>/0_*", ["0_Save1"]),
        P("<base>/0_Options", ["0_Options"]),
      ]),
    CoverageGame(
      "Dark Echo", 368_650, "Dark Echo", .proton,
      [
        P("<base>/lock_icon.png", ["lock_icon.png"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Dark Elf", 665_180, "Dark Elf", .proton,
      [
        P("<base>/*.rv*", ["Save01.rvdata"])
      ]),
    CoverageGame(
      "Dark Envoy", 945_770, "DarkEnvoy", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Event Horizon/DarkEnvoy/save",
          ["AppData/LocalLow/Event Horizon/DarkEnvoy/save/campaign_1.sav"]),
        P(
          "<home>/AppData/LocalLow/Event Horizon/DarkEnvoy/settings",
          ["AppData/LocalLow/Event Horizon/DarkEnvoy/settings/graphics.json"]),
      ]),
    CoverageGame(
      "Dark Fairy Fantasy", 1_153_550, "Dark Fairy Fantasy", .proton,
      [
        P("<base>/www/save/*.rpgsave", ["www/save/file1.rpgsave"])
      ]),
    CoverageGame(
      "Dark Fall 3: Lost Souls", 46_750, "Dark Fall Lost Souls", .proton,
      [
        P("<home>/Saved Games/Dark Fall - Lost Souls", ["Saved Games/Dark Fall - Lost Souls/save0.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Dark Fantasy 2: Jigsaw Puzzle", 1_071_330, "Dark Fantasy 2 Jigsaw Puzzle", .native,
      [
        P("<xdgConfig>/NAISU/Dark Fantasy 2/**/*.sav", ["NAISU/Dark Fantasy 2/puzzles/p1.sav"]),
        P("<xdgData>/NAISU/Dark Fantasy 2/**/*.sav", ["NAISU/Dark Fantasy 2/progress.sav"]),
      ]),
    CoverageGame(
      "Dark Future: Blood Red States", 370_870, "Dark Future Blood Red States", .proton,
      [
        P(
          "<winLocalAppData>/DarkFuture/Saved/Config",
          ["DarkFuture/Saved/Config/WindowsNoEditor/GameUserSettings.ini"]),
        P("<winLocalAppData>/DarkFuture/Saved/SaveGames", ["DarkFuture/Saved/SaveGames/Slot0.sav"]),
      ]),
    CoverageGame(
      "Dark Gates", 333_730, "DarkGates", .native,
      [
        P("<base>/savegame/game_*.sav", ["savegame/game_1.sav"]),
        P("<base>/savegame/team_*.sav", ["savegame/team_1.sav"]),
      ]),
    CoverageGame(
      "Dark Hope", 620_350, "Dark_Hope", .native,
      [
        P(
          "<home>/.config/unity3d/Broken_Bunny_Studios_Inc/Dark_Hope/<storeUserId>/*.dat",
          [".config/unity3d/Broken_Bunny_Studios_Inc/Dark_Hope/<storeUserId>/save.dat"])
      ]),
    CoverageGame(
      "Dark Hours", 2_208_570, "Dark Hours", .proton,
      [
        P(
          "<winLocalAppData>/darkhours/Saved/SaveGames/XdhGameplayData.sav",
          ["darkhours/Saved/SaveGames/XdhGameplayData.sav"])
      ]),
    CoverageGame(
      "Dragon Star Varnir", 1_062_040, "Dragon Star Varnir", .proton,
      [
        P("<base>/resource/bin/DragonStarVarnir.ini", ["resource/bin/DragonStarVarnir.ini"]),
        P(
          "<root>/userdata/<storeUserId>/1062040/remote", ["userdata/<storeUserId>/1062040/remote/SAVE00.BIN"]
        ),
        P(
          "<root>/userdata/<storeUserId>/1062040/remote/SYSTEMSAVE_GAME.BIN",
          ["userdata/<storeUserId>/1062040/remote/SYSTEMSAVE_GAME.BIN"]),
        P(
          "<root>/userdata/<storeUserId>/1062040/remote/SYSTEMSAVE_param.sfo",
          ["userdata/<storeUserId>/1062040/remote/SYSTEMSAVE_param.sfo"]),
      ]),
    CoverageGame(
      "Dragon's Dogma 2", 2_054_970, "Dragons Dogma 2", .proton,
      [
        P("<base>/config.ini", ["config.ini"]),
        P(
          "<root>/userdata/<storeUserId>/2054970/remote",
          ["userdata/<storeUserId>/2054970/remote/win64_save/data000.bin"]),
      ]),
    CoverageGame(
      "DragonClash", 1_126_300, "DragonClash", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Warspider Entertainment/DragonClash/<storeUserId>/*.save",
          ["AppData/LocalLow/Warspider Entertainment/DragonClash/<storeUserId>/profile.save"])
      ]),
    CoverageGame(
      "DragonFangZ - The Rose & Dungeon of Time", 749_850, "DragonFangZ", .native,
      [
        P("<home>/.config/unity3d/Toydea/DragonFangZ/*.*", [".config/unity3d/Toydea/DragonFangZ/save.dat"])
      ]),
    CoverageGame(
      "Dragonpath", 425_820, "Dragonpath", .proton,
      [
        P("<base>/Dragonpath_Data/SaveData/*.sav", ["Dragonpath_Data/SaveData/slot1.sav"])
      ]),
    CoverageGame(
      "Everreach: Project Eden", 915_670, "Everreach", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Elder Games/Everreach-ProjectEden/HotTotem",
          ["AppData/LocalLow/Elder Games/Everreach-ProjectEden/HotTotem/save.dat"])
      ]),
    CoverageGame(
      "Eversion", 33_680, "Eversion", .native,
      [
        P("<xdgConfig>/Eversion", ["Eversion/config.ini"]),
        P("<xdgData>/Eversion", ["Eversion/save.dat"]),
      ]),
    CoverageGame(
      "Everslash", 1_152_820, "Everslash", .proton,
      [
        P("<winAppData>/Everslash/*.save", ["Everslash/run.save"])
      ]),
    CoverageGame(
      "Everwind", 2_253_100, "Everwind", .proton,
      [
        P("<winLocalAppData>/Everwind/Saved/SaveGames", ["Everwind/Saved/SaveGames/World1.sav"])
      ]),
    CoverageGame(
      "Every Day We Fight", 1_546_080, "Project Fuji", .proton,
      [
        P("<winLocalAppData>/Fuji/Saved/SaveGames/*.sav", ["Fuji/Saved/SaveGames/Profile.sav"])
      ]),
    CoverageGame(
      "Everybody Loves Skeletons", 1_100_210, "Everybody Loves Skeletons", .native,
      [
        P("<base>/Data", ["Data/save.json"])
      ]),
    CoverageGame(
      "Everybody's Gone to the Rapture", 417_880, "Rapture", .proton,
      [
        P("<home>/Saved Games/Rapture", ["Saved Games/Rapture/SaveGame.dat"])
      ]),
    CoverageGame(
      "Everyday Genius: SquareLogic", 32_150, "Everyday Genius SquareLogic", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/32150/remote/steamuser.playerProfile",
          ["userdata/<storeUserId>/32150/remote/steamuser.playerProfile"]),
        P(
          "<root>/userdata/<storeUserId>/32150/remote/steamuser.sloptions",
          ["userdata/<storeUserId>/32150/remote/steamuser.sloptions"]),
      ]),
    CoverageGame(
      "Everyday Life Edengrall", 1_220_600, "Everyday Life Edengrall", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Edengrall/Everyday Life Edengrall/Saves/*.zip",
          ["AppData/LocalLow/Edengrall/Everyday Life Edengrall/Saves/save1.zip"])
      ]),
    CoverageGame(
      "Everything", 582_270, "Everything", .proton,
      [
        P(
          "<home>/AppData/LocalLow/David OReilly/Everything/Save Data",
          ["AppData/LocalLow/David OReilly/Everything/Save Data/save.dat"]),
        P(P.registry, ["user.reg"]),
      ]),
  ]
}
