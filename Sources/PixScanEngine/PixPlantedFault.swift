/// Deliberate PixScan engine bugs behind a switch, as Just Photo's `PlantedFault` (issue 24):
/// each is a small, plausible regression at one place of the engine, there so the project can
/// check that its goldens, its `expect:` rules and `jpreplay bisect commits` catch a wrong
/// engine (issue 26).
///
/// Only code sets them (`PixOptions.plantedFaults`): no recording header, event or store
/// field reaches them, and the engine never reads them from its environment. They are empty in
/// every real run; the CLI's hidden `--plant-fault NAME` (replay, verify) exists for tests
/// that stand a faulty build in for a commit's, and never writes a golden.
public enum PixPlantedFault: String, CaseIterable, Sendable, Comparable {
  case undoForgetsQueue = "pix-undo-forgets-queue"
  case undoForgetsPosition = "pix-undo-forgets-position"
  case blankTextKept = "pix-blank-text-kept"

  /// What the fault does, in terms of docs/PIXSCAN.md's decisions.
  public var summary: String {
    switch self {
    case .undoForgetsQueue:
      "undo forgets the delete queue (D3): the undone photo is unprocessed and current again, but a photo its swipe queued for deletion stays queued: `queue_removed: false`, no `queue` `removed` line, the store keeps the id in delete_queue, and keeping the photo later still counts it as deleted"
    case .undoForgetsPosition:
      "undo forgets the position (D6): the swipe is reverted, but the current photo stays where the swipe moved on to instead of going back to the undone one"
    case .blankTextKept:
      "a blank text is kept (D2): a recognised text that is empty or only whitespace makes a text entry instead of the message ocr_no_text"
    }
  }

  public static func < (a: PixPlantedFault, b: PixPlantedFault) -> Bool { a.rawValue < b.rawValue }

  /// The fault named `name`, nil for any other name.
  public static func named(_ name: String) -> PixPlantedFault? { allCases.first { $0.rawValue == name } }
}

/// A set of PixScan planted faults (a bit mask: no hash order, cheap to test).
public struct PixPlantedFaults: Equatable, Sendable {
  var bits: UInt8 = 0
  /// No fault: every real run.
  public init() {}
  public init(_ faults: some Sequence<PixPlantedFault>) { for f in faults { insert(f) } }
  static func bit(_ f: PixPlantedFault) -> UInt8 { 1 << UInt8(PixPlantedFault.allCases.firstIndex(of: f)!) }
  public mutating func insert(_ f: PixPlantedFault) { bits |= Self.bit(f) }
  @inline(__always) public func contains(_ f: PixPlantedFault) -> Bool { bits != 0 && bits & Self.bit(f) != 0 }
  public var isEmpty: Bool { bits == 0 }
  /// The faults in the set, in declaration order.
  public var all: [PixPlantedFault] { PixPlantedFault.allCases.filter(contains) }
}
