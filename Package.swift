// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "SaveVault",
  platforms: [.macOS(.v13)],
  products: [
    .library(name: "SaveVault", targets: ["SaveVault"]),
    .executable(name: "savevault", targets: ["savevault"]),
  ],
  targets: [
    // The C libraries are linked from their static copies (the SaveVault target's linker
    // settings), so no pkg-config and no `link` in their module maps. Each shared one costs
    // every run its loading: libcrypto alone about 2 ms, libarchive brings libxml2 and ICU for
    // formats SaveVault never reads. Static, only the code SaveVault calls comes in.
    .systemLibrary(
      name: "CLibArchive",
      providers: [
        .apt(["libarchive-dev", "libzstd-dev", "zlib1g-dev", "libbz2-dev", "liblzma-dev", "libacl1-dev"]),
        .brew(["libarchive"]),
      ]
    ),
    .systemLibrary(
      name: "CLibCrypto",
      providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
    ),
    .systemLibrary(
      name: "CYaml",
      providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
    ),
    // SQLite, to read Lutris's game database (read-only).
    .systemLibrary(
      name: "CSQLite",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    // Our own C: the build's version, and libcurl loaded on first use (LibCurl.c).
    .target(name: "CPlatform"),
    .target(
      name: "SaveVault",
      dependencies: ["CLibArchive", "CLibCrypto", "CYaml", "CSQLite", "CPlatform"],
      linkerSettings: [
        // libarchive's tar, pax and zstd code with the zstd code it calls, and its gzip, bzip2
        // and xz readers with zlib, libbz2 and liblzma (archives other tools made); SHA-256 and MD5 from
        // libcrypto; libyaml; SQLite. Their symbols stay out of the program's export table, so that the
        // libcrypto libcurl loads for HTTPS is never bound to this partial copy. libacl (LGPL,
        // tiny, on every Linux) stays shared.
        .unsafeFlags(
          [
            "-Xlinker", "-l:libarchive.a", "-Xlinker", "-l:libzstd.a", "-Xlinker", "-l:libz.a",
            "-Xlinker", "-l:libbz2.a", "-Xlinker", "-l:liblzma.a", "-Xlinker", "-l:libcrypto.a",
            "-Xlinker", "-l:libyaml.a", "-Xlinker", "-l:libsqlite3.a", "-Xlinker", "-lacl",
            "-Xlinker",
            "--exclude-libs=libarchive.a:libzstd.a:libz.a:libbz2.a:liblzma.a:libcrypto.a:libyaml.a:libsqlite3.a",
          ],
          .when(platforms: [.linux])),
        .linkedLibrary("archive", .when(platforms: [.macOS])),
        .linkedLibrary("crypto", .when(platforms: [.macOS])),
        .linkedLibrary("yaml", .when(platforms: [.macOS])),
        .linkedLibrary("sqlite3", .when(platforms: [.macOS])),
      ]
    ),
    .target(
      name: "SaveVaultCLI",
      dependencies: ["SaveVault"]
    ),
    .executableTarget(
      name: "savevault",
      dependencies: ["SaveVault", "SaveVaultCLI"]
    ),
    .testTarget(
      name: "SaveVaultTests",
      dependencies: ["SaveVault", "SaveVaultCLI", "savevault"]
    ),
  ]
)
