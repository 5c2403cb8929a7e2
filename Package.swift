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
    .systemLibrary(
      name: "CLibArchive",
      pkgConfig: "libarchive",
      providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]
    ),
    .systemLibrary(
      name: "CLibCrypto",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
    ),
    .systemLibrary(
      name: "CYaml",
      pkgConfig: "yaml-0.1",
      providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
    ),
    // Our own C: the build's version, and libcurl loaded on first use (LibCurl.c).
    .target(name: "CPlatform"),
    .target(
      name: "SaveVault",
      dependencies: ["CLibArchive", "CLibCrypto", "CYaml", "CPlatform"]
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
