import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What an upload carries forward unchanged from the archive it follows: that archive's
/// locations this device has no place for, extracted (and verified) into a scratch folder, so
/// that the new archive still holds them and no device's save loses a location because another
/// device lacks it.
struct CarriedLocations {
  /// The archive they come from.
  var archive: String
  /// Each as that archive describes it (name, portable form, the folder where it was made).
  var locations: [ArchiveLocation]
  /// Their content, each under its name (nil when they hold nothing).
  var scan: SaveScan?
  /// The scratch folder that holds it, removed once the upload is done.
  var folder: String
}

extension Vault {
  /// Where an upload extracts what it carries forward, a folder per game: removed when the
  /// upload ends, and by the next upload of the game when a kill left it.
  static func carryScratch(_ paths: Paths) -> String { paths.dataDirectory + "/carry-scratch" }

  /// The locations an upload of `target` carries forward, from the archive it follows: the
  /// cloud's latest when this device never agreed on it (the upload goes over it: a conflict
  /// answered "upload", `--force`, a device with no agreement), else the archive this device
  /// agreed on. Those that match none of the target's locations (`ArchiveLocation.match`) are
  /// taken from it whole; nil when there are none (and always for a one-folder game, whose
  /// archives hold its folder whole). Only an archive that can hold such a location is read:
  /// the latest's header (its first 256 KiB), or the agreed archive when the agreement names
  /// one this device has no place for.
  ///
  /// An archive that is refused (damaged, not as its manifest says) throws
  /// `VaultError.locationNotCarried`, unless `uploadsWithout` (a forced backup): then the upload
  /// goes without them, with a warning. The caller removes `folder` when done.
  func carryForward(_ target: Target, seen: Seen, container: any Container, uploadsWithout: Bool) throws
    -> CarriedLocations?
  {
    guard !target.isOneFolder else { return nil }
    let source: StoredArchive
    let expected: [ArchiveLocation]
    if let over = Self.unagreedLatest(record: seen.agreement, archives: seen.archives) {
      let header = try container.readStart(
        game: target.game, name: over.name, count: ArchiveContents.headerBytes
      ) { fd in ArchiveContents.header(fd: fd, archiveName: over.name) }
      (source, expected) = (over, target.lacking(header?.locations ?? []))
    } else if let record = seen.agreement {
      expected = target.stillUnplaced(record)
      guard let agreed = seen.archives.first(where: { $0.name == record.archive }) else {
        for location in expected {
          context.log.warning(
            "'\(location.portable.template)' of '\(record.archive)' is not in this upload: that archive is no longer in the container, and this device has no place for it"
          )
        }
        return nil
      }
      source = agreed
    } else {
      return nil
    }
    guard !expected.isEmpty else { return nil }
    let scratch = Self.carryScratch(paths) + "/" + target.game
    removeTree(scratch)  // a killed upload's
    do {
      var made: [String] = []  // SaveVault's own scratch: it stays
      let folder = try makeFolder(
        in: try makeParent(of: scratch + "/extracted", created: &made), prefix: "extracted-")
      let extraction = try extract(source, from: container, target: target, into: folder)
      // Each under a name none of this device's locations has (two accounts' folders of one
      // form are named alike on the devices that keep each).
      var taken = Set(target.locations.map(\.name))
      let carried = target.lacking(extraction.header?.locations ?? []).map { location in
        var named = location
        while !taken.insert(named.name).inserted {
          named.name = SaveLocation.name(index: taken.count, path: location.folderPortable.template)
        }
        return (extracted: location.name, location: named)
      }
      let scan = try SaveScan.scan(
        locations: carried.map { ($0.location.name, folder + "/" + $0.extracted) })
      verbose(
        "carrying \(carried.map(\.location.name).joined(separator: ", ")) forward from '\(source.name)'")
      return CarriedLocations(
        archive: source.name, locations: carried.map(\.location), scan: scan, folder: scratch)
    } catch ArchiveError.refused(_, let reason) {
      removeCarried(scratch)
      let names = expected.map { "'\($0.portable.template)'" }.joined(separator: ", ")
      guard uploadsWithout else {
        throw VaultError.locationNotCarried(
          game: target.game, archive: source.name, locations: expected.map(\.portable.template),
          reason: reason)
      }
      context.log.warning(
        "\(names) of '\(source.name)' left out of this upload: that archive cannot be read (\(reason))")
      return nil
    } catch {
      removeCarried(scratch)
      throw error
    }
  }

  /// Removes what `carryForward` extracted into `folder`, and the scratch folder once no game
  /// has one.
  func removeCarried(_ folder: String) {
    removeTree(folder)
    rmdir(Self.carryScratch(paths))
  }
}

extension SaveScan {
  /// This scan with `other`'s entries too (another part of the same save, under its own
  /// top-level names).
  func merging(_ other: SaveScan?) -> SaveScan {
    guard let other else { return self }
    var whole = self
    whole.entries += other.entries
    whole.entries.sort { pathPrecedes($0.path, $1.path) }
    whole.locations.merge(other.locations) { own, _ in own }
    whole.skipped += other.skipped
    whole.excluded += other.excluded
    return whole
  }
}
