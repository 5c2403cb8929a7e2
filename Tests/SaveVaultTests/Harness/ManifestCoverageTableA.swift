@testable import SaveVault

extension CoverageGame {
  /// The 37 games of the fixture's first version (2026-12-02), with what is placed for each.
  static let tableA: [CoverageGame] = [
    CoverageGame(
      "'83", 1_059_220, "'83", .proton,
      [
        P(
          "<winLocalAppData>/XV83/Saved/Config/Windows/*.ini",
          ["XV83/Saved/Config/Windows/GameUserSettings.ini"]),
        P(
          "<winLocalAppData>/XV83/Saved/SaveGames/**/*.sav",
          ["XV83/Saved/SaveGames/SaveSlot1.sav", "XV83/Saved/SaveGames/<storeUserId>/Campaign.sav"]),
      ]),
    CoverageGame(
      "(the) Gnorp Apologue", 1_473_350, "Gnorp", .proton,
      [
        P("<base>/options.ron", ["options.ron"]),
        P("<base>/saves", ["saves/slot1.sav"]),
        P("<winAppData>/Gnorp/Apologue/Saves", ["Gnorp/Apologue/Saves/save.dat"]),
        P("<winAppData>/Gnorp/Apologue/options.ron", ["Gnorp/Apologue/options.ron"]),
      ]),
    CoverageGame(
      ".T.E.S.T: Expected Behaviour", 771_710, "Test Expected Behaviour", .native,
      [
        P(
          "<xdgConfig>/unity3d/Veslo Games/Test Expected Behaviour/default.profile",
          ["unity3d/Veslo Games/Test Expected Behaviour/default.profile"]),
        P(
          "<xdgConfig>/unity3d/Veslo Games/Test Expected Behaviour/pref",
          ["unity3d/Veslo Games/Test Expected Behaviour/pref"]),
      ]),
    CoverageGame(
      ".hack//G.U. Last Recode", 525_480, "hackGU", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/525480/remote/savedata",
          [
            "userdata/<storeUserId>/525480/remote/savedata/hackGU.sav",
            "userdata/<storeUserId>/525480/remote/savedata/system.dat",
          ])
      ]),
    CoverageGame(
      "007 First Light", 3_768_760, "007 First Light", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/3768760",
          [
            "userdata/<storeUserId>/3768760/remote/KntSlotSaveFile-0",
            "userdata/<storeUserId>/3768760/remotecache.vdf",
          ]
        ),
        P(
          "<winAppData>/IO Interactive/Epic/<storeUserId>/007 First Light/KntSlotSaveFile-0",
          ["IO Interactive/Epic/<storeUserId>/007 First Light/KntSlotSaveFile-0"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "0rbitalis", 278_440, "0rbitalis", .proton,
      [
        P("<root>/userdata/<storeUserId>/278440/remote", ["userdata/<storeUserId>/278440/remote/save.sav"]),
        P("<winAppData>/0RBITALIS", ["0RBITALIS/settings.xml", "0RBITALIS/progress.dat"]),
      ]),
    CoverageGame(
      "1 Moment of Time: Silentville", 497_400, "1 Moment Of Time Silentville", .proton,
      [
        P("<winAppData>/2Monkeys/CrossMoT", ["2Monkeys/CrossMoT/Profile1.sav"]),
        P("<winAppData>/2Monkeys/CrossMoT/Settings.sav", ["2Monkeys/CrossMoT/Settings.sav"]),
      ]),
    CoverageGame(
      "1 Screen Platformer", 791_180, "1 Screen Platformer", .proton,
      [P("<winLocalAppData>/OneScreenPlatformStaticGM14", ["OneScreenPlatformStaticGM14/save.ini"])]),
    CoverageGame(
      "1/4平方米的星空", 899_190, "A Piece of Wish upon the Stars", .native,
      [P("<home>/.config/com/lingtanstudio/starrysky*", [".config/com/lingtanstudio/starrysky.save"])]),
    CoverageGame(
      "10 Second Ninja", 271_670, "10 Second Ninja", .proton,
      [
        P("<winLocalAppData>/10_Second_Ninja", ["10_Second_Ninja/savedata.sav"]),
        P("<winLocalAppData>/10_Second_Ninja/settings.ini", ["10_Second_Ninja/settings.ini"]),
      ]),
    CoverageGame(
      "10 Second Ninja X", 435_790, "10 Second Ninja X", .proton,
      [
        P(
          "<winLocalAppData>/_10_Second_Ninja_X_Test/asyncsavegroup/10SNX.sav",
          ["_10_Second_Ninja_X_Test/asyncsavegroup/10SNX.sav"])
      ]),
    CoverageGame(
      "10,000,000", 227_580, "10000000", .native,
      [P("<xdgConfig>/unity3d/EightyEightGames/10000000", ["unity3d/EightyEightGames/10000000/prefs"])]),
    CoverageGame(
      "10-4 Indirect Contact", 1_055_140, "10-4", .proton,
      [
        P(
          "<base>/10-4_Data/StreamingAssets/*.sav",
          ["10-4_Data/StreamingAssets/save1.sav", "10-4_Data/StreamingAssets/save2.sav"])
      ]),
    CoverageGame(
      "100% Orange Juice!", 282_800, "100 Orange Juice", .proton,
      [
        P(
          "<base>/save/<storeUserId>/profile[0,1,3].ojs",
          ["save/<storeUserId>/profile0.ojs", "save/<storeUserId>/profile1.ojs"]),
        P("<base>/settings.ojc", ["settings.ojc"]),
        P("<root>/userdata/<storeUserId>/282800", ["userdata/<storeUserId>/282800/remote/cloud.ojs"]),
      ]),
    CoverageGame(
      "1000xResist", 1_675_830, "1000xRESIST", .proton,
      [
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/options.sav"]),
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/cloud",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/cloud/slot0.1xr"]),
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/cloud/user.1xr",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/cloud/user.1xr"]),
        P(
          "<home>/Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/local/device.ssv",
          ["Saved Games/Sunset Visitor Studios/1000xRESIST/<storeUserId>/local/device.ssv"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "1001 Spikes", 260_790, "1001 Spikes", .proton,
      [
        P("<winDocuments>/My Games/1001 Spikes/Saves/Common.dat", ["My Games/1001 Spikes/Saves/Common.dat"]),
        P(
          "<winDocuments>/My Games/1001 Spikes/Saves/Profile*.sav",
          ["My Games/1001 Spikes/Saves/Profile1.sav", "My Games/1001 Spikes/Saves/Profile2.sav"]),
      ]),
    CoverageGame(
      "100ft Robot Golf", 368_000, "100ft Robot Golf", .proton, [P("<base>/*.sav", ["profile.sav"])]),
    CoverageGame(
      "11-11 Memories Retold", 735_580, "RocketMan", .proton,
      [
        P(
          "<root>/userdata/<storeUserId>/735580/remote",
          ["userdata/<storeUserId>/735580/remote/SaveGame0.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "11th Dream", 949_450, "11th Dream Game", .proton,
      [
        P(
          "<winAppData>/BluePulsarGames/11thDreamGame/<storeUserId>/*.*",
          ["BluePulsarGames/11thDreamGame/<storeUserId>/save.dat"])
      ]),
    CoverageGame(
      "12 Is Better than 6", 410_110, "12 is Better Than 6", .native,
      [
        P("<home>/.config/_12ibt6/savedata.ini", [".config/_12ibt6/savedata.ini"]),
        P("<home>/.config/_12ibt6/settings.ini", [".config/_12ibt6/settings.ini"]),
      ]),
    CoverageGame(
      "12 Labours of Hercules", 342_580, "12 Labours of Hercules", .native,
      [
        P("<home>/.Saves/ZOG/Hercules", [".Saves/ZOG/Hercules/Profile1.sav"]),
        P("<home>/.Saves/ZOG/Hercules/Settings.sav", [".Saves/ZOG/Hercules/Settings.sav"]),
      ]),
    CoverageGame(
      "12 Labours of Hercules IV: Mother Nature", 396_800, "12 Labours of Hercules IV Mother Nature", .native,
      [
        P("<home>/Saves/ZOG/Hercules4CE/**/*.sav", ["Saves/ZOG/Hercules4CE/Profiles/Player1.sav"]),
        P("<home>/Saves/ZOG/Hercules4CE/*.sav", ["Saves/ZOG/Hercules4CE/Settings.sav"]),
      ]),
    CoverageGame(
      "1348 Ex Voto", 1_895_900, "1348", .proton,
      [
        P("<base>/P1348/Saved/SaveGames", ["P1348/Saved/SaveGames/Slot0.sav"]),
        P("<winLocalAppData>/P1348/Saved/SaveGames", ["P1348/Saved/SaveGames/Slot1.sav"]),
      ]),
    CoverageGame(
      "140", 242_820, "140", .native,
      [
        P("<base>/140.sav", ["140.sav"]),
        P("<xdgConfig>/unity3d/JeppeCarlsen/140/prefs", ["unity3d/JeppeCarlsen/140/prefs"]),
      ]),
    CoverageGame(
      "171", 1_269_370, "171", .proton,
      [
        P("<winLocalAppData>/BGG/Saved/SaveGames/171Save*.sav", ["BGG/Saved/SaveGames/171Save0.sav"]),
        P(
          "<winLocalAppData>/BGG/Saved/SaveGames/Configuration*.sav",
          ["BGG/Saved/SaveGames/Configuration.sav"]),
      ]),
    CoverageGame(
      "1812: Napoleon Wars", 1_166_230, "1812 Napoleon Wars", .proton,
      [P("<winLocalAppData>/SavesDir/**/*.dat", ["SavesDir/campaign/turn1.dat", "SavesDir/options.dat"])]),
    CoverageGame(
      "1979 Revolution: Black Friday", 388_320, "1979 Revolution", .proton,
      [
        P("<base>/PlayerPrefs.txt", ["PlayerPrefs.txt"]),
        P(
          "<home>/AppData/LocalLow/N-Fusion Interactive/1979 Revolution/*.xml",
          ["AppData/LocalLow/N-Fusion Interactive/1979 Revolution/save1.xml"]),
      ]),
    CoverageGame(
      "1993 Space Machine", 373_480, "1993 Space Machine", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Limit Break/1993 Shenandoah/save_slot_*.dat",
          ["AppData/LocalLow/Limit Break/1993 Shenandoah/save_slot_1.dat"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Kingdom Come: Deliverance", 379_430, "KingdomComeDeliverance", .proton,
      [
        P("<base>/user.cfg", ["user.cfg"]),
        P(
          "<home>/Saved Games/kingdomcome/profiles/default/*.xml",
          ["Saved Games/kingdomcome/profiles/default/attributes.xml"]),
        P("<home>/Saved Games/kingdomcome/saves", ["Saved Games/kingdomcome/saves/playline0/quicksave.whs"]),
      ]),
    CoverageGame(
      "Kingdom Hearts III", 2_552_450, "KINGDOM HEARTS III", .proton,
      [
        P(
          "<winDocuments>/KINGDOM HEARTS III/Epic Games Store/<storeUserId>",
          ["KINGDOM HEARTS III/Epic Games Store/<storeUserId>/SaveData.sav"]),
        P(
          "<winDocuments>/KINGDOM HEARTS III/Epic Games Store/<storeUserId>/Config",
          ["KINGDOM HEARTS III/Epic Games Store/<storeUserId>/Config/Config.ini"]),
        P(
          "<winDocuments>/My Games/KINGDOM HEARTS III/Steam/<storeUserId>",
          ["My Games/KINGDOM HEARTS III/Steam/<storeUserId>/SaveData.sav"]),
        P(
          "<winDocuments>/My Games/KINGDOM HEARTS III/Steam/<storeUserId>/Config",
          ["My Games/KINGDOM HEARTS III/Steam/<storeUserId>/Config/Config.ini"]),
      ]),
    CoverageGame(
      "Kingdom Rush", 246_420, "Kingdom Rush", .native,
      [
        P("<base>/slot*.data", ["slot1.data"]),
        P("<xdgData>/kingdom_rush/settings.lua", ["kingdom_rush/settings.lua"]),
        P("<xdgData>/kingdom_rush/slot_*.lua", ["kingdom_rush/slot_1.lua", "kingdom_rush/slot_2.lua"]),
      ]),
    CoverageGame(
      "Steredenn", 347_160, "Steredenn", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Pixelnest Studio/Steredenn/steredennou.sav",
          ["AppData/LocalLow/Pixelnest Studio/Steredenn/steredennou.sav"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Stereo Boy", 2_073_530, "Stereo Boy", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Main Gauche Games/Stereo Boy/steam/<storeUserId>/savedata*",
          ["AppData/LocalLow/Main Gauche Games/Stereo Boy/steam/<storeUserId>/savedata0"])
      ]),
    CoverageGame(
      "Steven Universe: Unleash the Light", 1_379_560, "Steven Universe Unleash the Light", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Grumpyface Studios/Unleash the Light/**/*.sav",
          [
            "AppData/LocalLow/Grumpyface Studios/Unleash the Light/slot1.sav",
            "AppData/LocalLow/Grumpyface Studios/Unleash the Light/backup/slot1.sav",
          ])
      ]),
    CoverageGame(
      "Stick Fight: The Game", 674_940, "StickFightTheGame", .proton,
      [
        P(
          "<home>/AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/*/Level.bin",
          ["AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/MyLevel/Level.bin"]),
        P(
          "<home>/AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/*/ScreenShot.png",
          ["AppData/LocalLow/Landfall West/Stick Fight_ The Game/CustomLevels/MyLevel/ScreenShot.png"]),
        P(P.registry, ["user.reg"]),
      ]),
    CoverageGame(
      "Stick War: Castle Defence", 815_360, "Stick War Castle Defence", .proton,
      [P("<winDocuments>/My Games/Stick War/*.stfu", ["My Games/Stick War/save1.stfu"])]),
    CoverageGame(
      "Sticky Paws", 1_129_090, "Sticky Paws", .native,
      [
        P("<home>/Sticky_Paws_DX", ["Sticky_Paws_DX/save_file/file1.ini"]),
        P("<xdgConfig>/Sticky_Paws_DX", ["Sticky_Paws_DX/config.ini"]),
        P("<xdgData>/Sticky_Paws_DX", ["Sticky_Paws_DX/custom_levels/level1.ini"]),
      ]),
  ]
}
