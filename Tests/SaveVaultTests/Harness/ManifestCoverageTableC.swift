@testable import SaveVault

extension CoverageGame {
  /// Games of the fixture added on 2026-12-03 (sampled across the whole manifest), from
  /// "Evil Genius 2: World Domination" to "Unit 4", with what is placed for each.
  static let tableC: [CoverageGame] = [
    CoverageGame(
      "Evil Genius 2: World Domination", 700_600, "Evil Genius 2", .proton,
      [
        P(
          "<winLocalAppData>/Evil Genius 2/PC_ProfileSaves",
          ["Evil Genius 2/PC_ProfileSaves/Profile/Save1.sav"])
      ]),
    CoverageGame(
      "Evil Inside", 1_243_880, "Evil Inside", .proton,
      [
        P(
          "<home>/AppData/LocalLow/JanduSoft/Evil_Inside/*.dat",
          ["AppData/LocalLow/JanduSoft/Evil_Inside/game.dat"])
      ]),
    CoverageGame(
      "Half Past Disaster", 683_630, "Half Past Disaster", .proton,
      [
        P(
          "<home>/AppData/LocalLow/GoldenAgeCreative/**/*.dat",
          ["AppData/LocalLow/GoldenAgeCreative/halfpastdisaster/save.dat"])
      ]),
    CoverageGame(
      "Half Past Fate", 1_048_740, "Half Past Fate", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Serenity Forge/Half Past FateGameData/Save.dat",
          ["AppData/LocalLow/Serenity Forge/Half Past FateGameData/Save.dat"]),
        P(
          "<home>/AppData/LocalLow/Serenity Forge/Half Past FateGameData/UserSettings.dat",
          ["AppData/LocalLow/Serenity Forge/Half Past FateGameData/UserSettings.dat"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Half Sword", 2_397_300, "Half Sword", .proton,
      [
        P("<base>/HalfSwordUE5/Saved/Config/Windows", ["HalfSwordUE5/Saved/Config/Windows/Game.ini"]),
        P(
          "<winLocalAppData>/HalfSwordUE5/Saved/Config/Windows",
          ["HalfSwordUE5/Saved/Config/Windows/GameUserSettings.ini"]),
        P("<winLocalAppData>/HalfSwordUE5/Saved/SaveGames", ["HalfSwordUE5/Saved/SaveGames/Progress.sav"]),
      ]),
    CoverageGame(
      "Half-Life", 70, "Half-Life", .native,
      [
        P("<base>/valve/*.cfg", ["valve/config.cfg"]),
        P("<base>/valve/SAVE", ["valve/SAVE/quick.sav"]),
      ]),
    CoverageGame(
      "Half-Life 2", 220, "Half-Life 2", .native,
      [
        P("<base>/hl2/cfg", ["hl2/cfg/autoexec.cfg"]),
        P("<base>/hl2/cfg/config.cfg", ["hl2/cfg/config.cfg"]),
        P("<base>/hl2/save", ["hl2/save/quick.sav"]),
        P(
          "<root>/userdata/<storeUserId>/220/remote/ROOT_MOD/cfg/config.cfg",
          ["userdata/<storeUserId>/220/remote/ROOT_MOD/cfg/config.cfg"]),
      ]),
    CoverageGame(
      "Half-Life 2 RTX", 2_477_290, "Half-Life 2 RTX", .proton,
      [
        P("<base>/hl2rtx/save/*.*", ["hl2rtx/save/autosave.sav"])
      ]),
    CoverageGame(
      "Half-Life Legacy", 3_619_040, "Half-Life Legacy", .proton,
      [
        P("<base>/hlc/*.cfg", ["hlc/config.cfg"]),
        P("<base>/hlc/SAVE/*.sav", ["hlc/SAVE/quick.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Half-Life: Alyx", 546_560, "Half-Life Alyx", .proton,
      [
        P("<base>/game/hlvr/SAVE/S*", ["game/hlvr/SAVE/S1/quick.sav"]),
        P("<base>/game/hlvr/SAVE/S*/personal.cfg", ["game/hlvr/SAVE/S1/personal.cfg"]),
        P("<base>/game/hlvr/cfg", ["game/hlvr/cfg/machine_convars.vcfg"]),
      ]),
    CoverageGame(
      "Legend of Fainn Dynasty: Battles of Beautiful Warlords", 720_240,
      "Legend of Fainn Dynasty ～Battles of Beautiful Warlords～", .proton,
      [
        P(
          "<home>/AppData/LocalLow/dieselmine/faininbuden/*.bytes",
          ["AppData/LocalLow/dieselmine/faininbuden/save0.bytes"])
      ]),
    CoverageGame(
      "Legend of Grimrock", 207_170, "Legend of Grimrock", .native,
      [
        P(
          "<xdgData>/Almost Human/Legend of Grimrock",
          ["Almost Human/Legend of Grimrock/grimrock.cfg", "Almost Human/Legend of Grimrock/quicksave.sav"])
      ]),
    CoverageGame(
      "Legend of Grimrock 2", 251_730, "Legend of Grimrock 2", .proton,
      [
        P(
          "<winDocuments>/Almost Human/Legend of Grimrock 2/*.sav",
          ["Almost Human/Legend of Grimrock 2/quicksave.sav"]),
        P(
          "<winDocuments>/Almost Human/Legend of Grimrock 2/grimrock.cfg",
          ["Almost Human/Legend of Grimrock 2/grimrock.cfg"]),
      ]),
    CoverageGame(
      "Legend of Himari", 634_340, "Legend of Himari", .proton,
      [
        P("<winLocalAppData>/Legend_of_Himari", ["Legend_of_Himari/save.ini"])
      ]),
    CoverageGame(
      "Legend of Homebody", 744_260, "Legend of Homebody", .proton,
      [
        P("<base>/LoH_Data/**/*.sav", ["LoH_Data/Saves/slot1.sav"])
      ]),
    CoverageGame(
      "Legend of Kay Anniversary", 313_810, "Legend of Kay Anniversary", .proton,
      [
        P("<home>/Saved Games/legendofkay.exe", ["Saved Games/legendofkay.exe/savegame0.sav"]),
        P(
          "<root>/userdata/<storeUserId>/313810/remote/autocloud/save",
          ["userdata/<storeUserId>/313810/remote/autocloud/save/savegame0.sav"]),
        P("<winAppData>/kaiko/legendofkay/config.ini", ["kaiko/legendofkay/config.ini"]),
      ]),
    CoverageGame(
      "Legend of Keepers", 978_520, "Legend of Keepers", .native,
      [
        P(
          "<xdgConfig>/unity3d/GoblinzStudio/LegendOfKeepers/legendofkeepers",
          ["unity3d/GoblinzStudio/LegendOfKeepers/legendofkeepers/career.json"]),
        P(
          "<xdgConfig>/unity3d/GoblinzStudio/LegendOfKeepers/legendofkeepers/settings.json",
          ["unity3d/GoblinzStudio/LegendOfKeepers/legendofkeepers/settings.json"]),
      ]),
    CoverageGame(
      "Legend of Mana", 1_175_830, "Legend of Mana", .proton,
      [
        P(
          "<winDocuments>/My Games/Legend of Mana/GOG/<storeUserId>",
          ["My Games/Legend of Mana/GOG/<storeUserId>/SaveData00.sav"]),
        P(
          "<winDocuments>/My Games/Legend of Mana/Steam/<storeUserId>",
          ["My Games/Legend of Mana/Steam/<storeUserId>/SaveData00.sav"]),
      ]),
    CoverageGame(
      "Legend of Mercy", 676_090, "LOM神医魔导", .proton,
      [
        P("<base>/savedata/**/*.bak", ["savedata/slot1/data.bak"]),
        P("<base>/savedata/**/*.ksd", ["savedata/slot1/data.ksd"]),
      ]),
    CoverageGame(
      "Legend of Miro", 469_980, "Legend of Miro", .proton,
      [
        P("<winDocuments>/001/Games/Legend of Miro/*.sav", ["001/Games/Legend of Miro/miro.sav"])
      ]),
    CoverageGame(
      "Legend of the Tetrarchs", 1_040_740, "Legend of the Tetrarchs", .proton,
      [
        P(
          "<home>/AppData/LocalLow/hitpoint/Legend of the Tetrarchs/*.sav",
          ["AppData/LocalLow/hitpoint/Legend of the Tetrarchs/game1.sav"])
      ]),
    CoverageGame(
      "Legends of Aethereus", 248_410, "LegendsOfAethereus", .proton,
      [
        P("<base>/Settings.ini", ["Settings.ini"]),
        P(
          "<home>/AppData/LocalLow/Threegates/Legends of Aethereus",
          ["AppData/LocalLow/Threegates/Legends of Aethereus/Character1.sav"]),
      ]),
    CoverageGame(
      "Legends of Amberland II: The Song of Trees", 2_110_840, "Legends of Amberland II", .proton,
      [
        P("<winAppData>/Legends of Amberland II/config.ini", ["Legends of Amberland II/config.ini"]),
        P("<winAppData>/Legends of Amberland II/save", ["Legends of Amberland II/save/slot1.sav"]),
      ]),
    CoverageGame(
      "No Heroes Here", 696_140, "NoHeroesHere", .proton,
      [
        P("<base>/Save Data/**/*.sav", ["Save Data/Profile1/progress.sav"])
      ]),
    CoverageGame(
      "No Longer Home", 651_490, "No Longer Home", .native,
      [
        P(
          "<home>/.config/unity3d/Humble Grove/NoLongerHome/*.nlh",
          [".config/unity3d/Humble Grove/NoLongerHome/save0.nlh"])
      ]),
    CoverageGame(
      "No More Heroes", 1_420_290, "No More Heroes", .proton,
      [
        P("<home>/Saved Games/NMH", ["Saved Games/NMH/settings.ini"]),
        P("<home>/Saved Games/NMH/saves", ["Saved Games/NMH/saves/save01.dat"]),
      ]),
    CoverageGame(
      "No More Heroes 3", 1_744_330, "No More Heroes 3", .proton,
      [
        P("<winAppData>/No More Heroes 3/Settings.plist", ["No More Heroes 3/Settings.plist"]),
        P(
          "<winLocalAppData>/No More Heroes 3/Saved/Config/WindowsNoEditor",
          ["No More Heroes 3/Saved/Config/WindowsNoEditor/Engine.ini"]),
        P(
          "<winLocalAppData>/No More Heroes 3/Saved/SaveGames",
          ["No More Heroes 3/Saved/SaveGames/Save01.sav"]),
      ]),
    CoverageGame(
      "No Pineapple Left Behind", 350_090, "No Pineapple Left Behind", .proton,
      [
        P("<base>/nplb_Data/Data/config.txt", ["nplb_Data/Data/config.txt"]),
        P("<winDocuments>/NPLB_Save_File/save.nplb", ["NPLB_Save_File/save.nplb"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "No Place for Bravery", 1_039_100, "No Place for Bravery", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Glitch Factory/No Place for Bravery/Saves/*.es3",
          ["AppData/LocalLow/Glitch Factory/No Place for Bravery/Saves/slot1.es3"])
      ]),
    CoverageGame(
      "No Rest for the Wicked", 1_371_980, "NoRestForTheWicked", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Moon Studios/NoRestForTheWicked/DataStore/*.dat",
          ["AppData/LocalLow/Moon Studios/NoRestForTheWicked/DataStore/character.dat"])
      ]),
    CoverageGame(
      "No Sun To Worship", 2_202_470, "NoSunToWorship", .proton,
      [
        P(
          "<winLocalAppData>/NoSunToWorship/Saved/SaveGames/**/*.sav",
          ["NoSunToWorship/Saved/SaveGames/Run.sav"])
      ]),
    CoverageGame(
      "No Time", 1_043_340, "No Time", .proton,
      [
        P("<root>/steamapps/common/No Time/Saves Cloud", ["steamapps/common/No Time/Saves Cloud/save1.json"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Robotherapy", 1_895_970, "Robotherapy", .native,
      [
        P(
          "<xdgData>/godot/app_userdata/Robotherapy/savegame.save",
          ["godot/app_userdata/Robotherapy/savegame.save"]),
        P(
          "<xdgData>/godot/app_userdata/Robotherapy/settings.ini",
          ["godot/app_userdata/Robotherapy/settings.ini"]),
      ]),
    CoverageGame(
      "Robothorium", 657_090, "Robothorium", .native,
      [
        P("<base>/Robothorium_Data", ["Robothorium_Data/saves/save1.json"]),
        P("<home>/GoblinzStudio/Robothorium", ["GoblinzStudio/Robothorium/profile.json"]),
      ]),
    CoverageGame(
      "Robotics;Notes DaSH", 1_111_390, "ROBOTICS;NOTES DaSH", .proton,
      [
        P(
          "<winDocuments>/My Games/mages_steam/Robotics Notes DASH/eng",
          ["My Games/mages_steam/Robotics Notes DASH/eng/save00.dat"])
      ]),
    CoverageGame(
      "Rochard", 107_800, "Rochard", .native,
      [
        P(
          "<home>/.config/unity3d/Recoil Games/Rochard/game.dat",
          [".config/unity3d/Recoil Games/Rochard/game.dat"]),
        P(
          "<home>/.config/unity3d/Recoil Games/Rochard/profile.dat",
          [".config/unity3d/Recoil Games/Rochard/profile.dat"]),
        P("<root>/userdata/<storeUserId>/107800/game.dat", ["userdata/<storeUserId>/107800/game.dat"]),
      ]),
    CoverageGame(
      "Rock 'N' Roll Defense", 438_480, "Rock 'N' Roll Defense", .proton,
      [
        P("<winLocalAppData>/Rock__N__Roll_Defense/Rnrdconfig.sav", ["Rock__N__Roll_Defense/Rnrdconfig.sav"])
      ]),
    CoverageGame(
      "Rock God Tycoon", 410_840, "RockGodTycoon", .proton,
      [
        P("<winLocalAppData>/RockGodTycoon/save_data", ["RockGodTycoon/save_data/band.sav"])
      ]),
    CoverageGame(
      "Rock Simulator", 1_187_510, "Rock Simulator", .proton,
      [
        P("<winLocalAppData>/RockSimulator/Saved/SaveGames/*.sav", ["RockSimulator/Saved/SaveGames/Rock.sav"])
      ]),
    CoverageGame(
      "Rock of Ages 3: Make & Break", 1_101_360, "Rock of Ages III Make & Break", .proton,
      [
        P(
          "<winLocalAppData>/ROA3/Saved/Config/WindowsNoEditor",
          ["ROA3/Saved/Config/WindowsNoEditor/Input.ini"]),
        P("<winLocalAppData>/ROA3/Saved/SaveGames", ["ROA3/Saved/SaveGames/Campaign.sav"]),
      ]),
    CoverageGame(
      "Rock-n-Rogue A Boo Bunny Plague Adventure", 439_530, "Rock-n-Rogue A Boo Bunny Plague Adventure",
      .proton,
      [
        P("<base>/RockNRogue/Saved/SaveGames/*.sav", ["RockNRogue/Saved/SaveGames/Slot.sav"])
      ]),
    CoverageGame(
      "Rocket Fist", 413_500, "Rocket Fist", .native,
      [
        P("<xdgData>/DanielSnd/RocketFist/SavesDir/*.rf", ["DanielSnd/RocketFist/SavesDir/save.rf"])
      ]),
    CoverageGame(
      "Sword Mans", 815_840, "Sword Mans", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Bypass Game Studios/Sword Mans/*.dat",
          ["AppData/LocalLow/Bypass Game Studios/Sword Mans/save.dat"])
      ]),
    CoverageGame(
      "Sword and Fairy 7", 1_543_030, "仙剑奇侠传七", .proton,
      [
        P(
          "<winLocalAppData>/Pal7/Saved/Config/WindowsNoEditor",
          ["Pal7/Saved/Config/WindowsNoEditor/GameUserSettings.ini"]),
        P(
          "<winLocalAppData>/Pal7/Saved/Steam/<storeUserId>",
          ["Pal7/Saved/Steam/<storeUserId>/SaveGame01.sav"]),
      ]),
    CoverageGame(
      "Sword of Asumi", 326_950, "Sword of Asumi", .native,
      [
        P("<base>/game/saves/*.save", ["game/saves/1-1-LT1.save"]),
        P("<base>/game/saves/persistent", ["game/saves/persistent"]),
      ]),
    CoverageGame(
      "Sword of Rapier", 933_430, "Sword of Rapier", .proton,
      [
        P(
          "<home>/AppData/LocalLow/vDog/Sword of Rapier/SaveData.dat",
          ["AppData/LocalLow/vDog/Sword of Rapier/SaveData.dat"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Sword of the Guardian", 561_930, "Sword of the Guardian", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Billy Chan Studio/Sword of the Guardian/*.*",
          ["AppData/LocalLow/Billy Chan Studio/Sword of the Guardian/save.es3"])
      ]),
    CoverageGame(
      "Sword of the Necromancer", 1_243_890, "SwordOfTheNecromancer", .proton,
      [
        P("<winLocalAppData>/SwordOfTheNecromancer/sotn/*.sav", ["SwordOfTheNecromancer/sotn/slot0.sav"]),
        P(
          "<winLocalAppData>/SwordOfTheNecromancer/twitch_settings.ini",
          ["SwordOfTheNecromancer/twitch_settings.ini"]),
      ]),
    CoverageGame(
      "Sword of the Sea", 2_453_160, "Sword of the Sea", .proton,
      [
        P(
          "<winLocalAppData>/SwordOfTheSea/Saved", ["SwordOfTheSea/Saved/Config/Windows/GameUserSettings.ini"]
        ),
        P(
          "<winLocalAppData>/SwordOfTheSea/Saved/SaveGames/*.sav", ["SwordOfTheSea/Saved/SaveGames/Slot1.sav"]
        ),
      ]),
    CoverageGame(
      "Sword of the Stars: The Pit", 233_700, "The Pit", .native,
      [
        P("<root>/userdata/<storeUserId>/233700/remote", ["userdata/<storeUserId>/233700/remote/pit.sav"]),
        P("<xdgConfig>/ThePit", ["ThePit/settings.cfg"]),
      ]),
    CoverageGame(
      "SwordBounce", 852_390, "SwordBounce", .proton,
      [
        P("<winLocalAppData>/SwordBounce/**/*.sav", ["SwordBounce/Saved/SaveGames/progress.sav"])
      ]),
    CoverageGame(
      "Swords & Crossbones: An Epic Pirate Story", 383_720, "Swords and Crossbones", .proton,
      [
        P("<root>/userdata/<storeUserId>/383720/remote", ["userdata/<storeUserId>/383720/remote/save1.xml"]),
        P(
          "<root>/userdata/<storeUserId>/383720/remote/game_settings.xml",
          ["userdata/<storeUserId>/383720/remote/game_settings.xml"]),
      ]),
    CoverageGame(
      "Swords & Soldiers", 63_500, "SwordsAndSoldiersHD", .proton,
      [
        P(
          "<root>/steamapps/common/SwordsAndSoldiersHD/Data/Save.txt",
          ["steamapps/common/SwordsAndSoldiersHD/Data/Save.txt"]),
        P(
          "<root>/steamapps/common/SwordsAndSoldiersHD/Data/Settings",
          ["steamapps/common/SwordsAndSoldiersHD/Data/Settings/options.txt"]),
        P("<root>/userdata/<storeUserId>/63500", ["userdata/<storeUserId>/63500/remote/Save.txt"]),
      ]),
    CoverageGame(
      "Swords & Soldiers II: Shawarmageddon", 703_880, "Swords and Soldiers 2", .proton,
      [
        P("<base>/Config.txt", ["Config.txt"]),
        P("<root>/userdata/<storeUserId>/703880/remote", ["userdata/<storeUserId>/703880/remote/Save.txt"]),
      ]),
    CoverageGame(
      "Swords & Souls: Neverseen", 679_900, "Swords & Souls Neverseen", .proton,
      [
        P(
          "<home>/AppData/LocalLow/SoulGame/Swords_Souls Neverseen/slot*",
          ["AppData/LocalLow/SoulGame/Swords_Souls Neverseen/slot1"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "The Sandbox", 265_810, "TheSandbox", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/265810/remote/User/*.sav",
          ["userdata/<storeUserId>/265810/remote/User/world1.sav"])
      ]),
    CoverageGame(
      "The Santa Challenge", 1_197_360, "Santa Challenge", .native,
      [
        P(
          "<home>/.config/unity3d/Cold Coffee Studio/The Santa Challenge",
          [".config/unity3d/Cold Coffee Studio/The Santa Challenge/prefs"])
      ]),
    CoverageGame(
      "The Sapling", 997_380, "The Sapling", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Wessel Stoop/The Sapling/*.save",
          ["AppData/LocalLow/Wessel Stoop/The Sapling/world1.save"])
      ]),
    CoverageGame(
      "The Sea Between", 896_550, "The Sea Between", .proton,
      [
        P("<winLocalAppData>/User Data/*.rpgsave", ["User Data/file1.rpgsave"])
      ]),
    CoverageGame(
      "The Secret of Hildegards", 283_470, "The Secret Of Hildegards", .proton,
      [
        P(
          "<winDocuments>/The Secrets Of Hildegard/Profiles/**/*.hg",
          ["The Secrets Of Hildegard/Profiles/Player/progress.hg"]),
        P(
          "<winDocuments>/The Secrets Of Hildegard/Profiles/**/*.xml",
          ["The Secrets Of Hildegard/Profiles/profiles.xml"]),
      ]),
    CoverageGame(
      "Unending Dusk", 806_530, "Unending Dusk", .proton,
      [
        P(
          "<home>/AppData/LocalLow/VindicateGames/UnendingDusk/*.sav",
          ["AppData/LocalLow/VindicateGames/UnendingDusk/game.sav"])
      ]),
    CoverageGame(
      "Unexpected End", 740_170, "Unexpected End", .proton,
      [
        P("<base>/Saves/*.ue", ["Saves/save1.ue"])
      ]),
    CoverageGame(
      "Unexplored", 506_870, "Unexplored", .native,
      [
        P("<xdgData>/Unexplored/save", ["Unexplored/save/game.sav"]),
        P("<xdgData>/Unexplored/settings.xpr", ["Unexplored/settings.xpr"]),
      ]),
    CoverageGame(
      "Unfinished Dream of All Living Ghost", 2_400_340, "th19", .proton,
      [
        P("<winAppData>/ShanghaiAlice/th19/scoreth19.dat", ["ShanghaiAlice/th19/scoreth19.dat"]),
        P("<winAppData>/ShanghaiAlice/th19/snapshot", ["ShanghaiAlice/th19/snapshot/th19_00.png"]),
        P("<winAppData>/ShanghaiAlice/th19/th19.cfg", ["ShanghaiAlice/th19/th19.cfg"]),
      ]),
    CoverageGame(
      "Unforeseen Incidents", 501_790, "Unforeseen Incidents", .native,
      [
        P(
          "<home>/.config/unity3d/Backwoods/Unforeseen Incidents/*.save",
          [".config/unity3d/Backwoods/Unforeseen Incidents/slot1.save"]),
        P(
          "<home>/.config/unity3d/Backwoods/Unforeseen Incidents/prefs",
          [".config/unity3d/Backwoods/Unforeseen Incidents/prefs"]),
      ]),
    CoverageGame(
      "Unheard", 942_970, "Unheard", .proton,
      [
        P(
          "<home>/AppData/LocalLow/NEXTStudios/Unheard",
          ["AppData/LocalLow/NEXTStudios/Unheard/Save/case1.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Unholy Heights", 249_330, "Unholy Heights", .proton,
      [
        P(
          "<winDocuments>/SavedGames/UnholyHeights/Unholy Heights/Player1",
          ["SavedGames/UnholyHeights/Unholy Heights/Player1/Save1.xml"]),
        P(
          "<winDocuments>/SavedGames/UnholyHeights/Unholy Heights/Player1/Property.xml",
          ["SavedGames/UnholyHeights/Unholy Heights/Player1/Property.xml"]),
      ]),
    CoverageGame(
      "Uninvited", 343_810, "Uninvited MacVenture Series", .proton,
      [
        P("<winAppData>/zojoi", ["zojoi/Uninvited/save1.sav"])
      ]),
    CoverageGame(
      "Unit 4", 633_440, "Unit 4", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Gamera Games/Unit4/*.ez",
          ["AppData/LocalLow/Gamera Games/Unit4/SaveFile.ez"])
      ]),
  ]
}
