import Foundation
import Testing

@testable import SaveVault

@Suite(
  "Folder temporaries: a killed upload's left-over is this machine's to remove, no one else's", .tags(.small))
struct FolderTemporaryTests {
  /// A pid that no process has (the highest a Linux pid can be, plus one).
  static let deadPID = "4194305"

  @Test("this machine's temporary of a dead process is an orphan; one of a live process is not")
  func ownOrphan() {
    let owner = FolderContainer.owner("steamdeck")
    #expect(FolderContainer.isOrphan(Substring(owner + "." + Self.deadPID + "-AbC123"), device: "steamdeck"))
    #expect(!FolderContainer.isOrphan(Substring(owner + ".1-AbC123"), device: "steamdeck"), "pid 1 runs")
  }

  @Test("another machine with the same device name is never taken for an orphan, nor another device")
  func otherMachine() {
    #expect(
      !FolderContainer.isOrphan(
        Substring("steamdeck@00000000." + Self.deadPID + "-AbC123"), device: "steamdeck"))
    #expect(
      !FolderContainer.isOrphan(Substring("steamdeck." + Self.deadPID + "-AbC123"), device: "steamdeck"))
    let other = FolderContainer.owner("pc")
    #expect(!FolderContainer.isOrphan(Substring(other + "." + Self.deadPID + "-AbC123"), device: "steamdeck"))
  }
}
