import CanonicalJSON
import EngineIO
import Foundation
import PixScanEngine
import PixScanPlugin
import PixScanScenarios
import Replay
import Testing

/// PixScan behind the seam, counting how often the storage of its store's `processed` and
/// `queue` arrays moved: a move is a new buffer (a copy on write while another value shares
/// the old one, or growth past the capacity). Work done, never a time.
struct StorageWatchingPix: ReplayableEngine {
  typealias Vocabulary = PixScanVocabulary
  var inner = PixScanSeamEngine()
  var moves = 0
  var swipes = 0
  var last: (processed: UInt, queue: UInt) = (0, 0)

  mutating func start() -> PixSeamStep { inner.start() }
  mutating func handle(_ event: InputEvent) -> PixSeamStep {
    let step = inner.handle(event)
    if case .named(let e) = event.payload, e.kind == "swipe" { swipes += 1 }
    watch()
    return step
  }
  mutating func fire(_ timer: TimerID, at now: Millis) -> PixSeamStep { inner.fire(timer, at: now) }
  mutating func relaunch(_ event: InputEvent, restoring stored: PixStore) -> PixSeamStep { inner.relaunch(event, restoring: stored) }
  var snapshotOnDemand: PixStore? { inner.snapshotOnDemand }

  mutating func watch() {
    let store = inner.engine.currentStore
    let now = (Self.address(store.processed), Self.address(store.queue))
    if now.0 != last.processed, store.processed.count > 1 { moves += 1 }
    if now.1 != last.queue, store.queue.count > 1 { moves += 1 }
    last = now
  }

  static func address(_ a: [String]) -> UInt { a.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
}

/// Issue 38 item 4: the replay's temporary store takes PixScan's snapshot when it is read back
/// (before a kill, before the relaunch reads it, at the end) instead of keeping every step's,
/// so a swipe appends to the store's arrays in place: their storage moves O(log n) times over
/// a session, not once per swipe (which made the 5,000-photo session quadratic).
@Suite("PixScan's store on demand")
struct PixStoreOnDemandTests {
  /// `swipes` swipes (keep, delete alternately) over as many photos.
  static func session(swipes: Int) throws -> PixScenario {
    let yaml = """
      engine: pixscan
      name: swipes-\(swipes)
      library: {count: \(swipes), screenshots: 0.3, from: 2025-01-01, to: 2026-06-30, seed: 7}
      script:
        - {at: 0, do: app_launch, permission: authorized, store: {onboarding_completed: true}}
        - {at: 100, do: library_snapshot}
        - {at: 1000, do: run, swipes: \(swipes), every_ms: 100, pattern: [right, left]}
      """
    return try PixScenario.parse(yaml: yaml, file: "swipes-\(swipes).yaml")
  }

  /// Replays `s` into memory with `store`; returns the trace, the storage moves and the swipes.
  static func replay(_ s: PixScenario, store: any SessionStorePort<PixStore>) throws -> (trace: String, moves: Int, swipes: Int) {
    var source = PixScanSeamTests.source(s)
    var output = TraceOutput(trace: MemoryLineSink(), a13: MemoryLineSink(), vocabulary: PixScanVocabulary.self)
    var replayer = Replayer(engine: StorageWatchingPix(), options: ReplayOptions(strictEffects: true), sessionStore: store)
    _ = try replayer.run(&source, into: &output, recording: s.name)
    return (output.trace.text, replayer.engine.moves, replayer.engine.swipes)
  }

  static func temporary() throws -> EngineStoreLease<PixScanVocabulary> {
    try #require(try EngineStoreLease<PixScanVocabulary>.open(.temporary, label: "on-demand-test"))
  }

  @Test("a temporary store's replay moves the store's arrays a logarithmic number of times: 2N swipes add a few moves to N's")
  func storageMovesStayLogarithmic() throws {
    let lease = try Self.temporary()
    defer { lease.finish() }
    #expect(!lease.wantsEverySnapshot)
    let n = try Self.replay(Self.session(swipes: 400), store: lease)
    let lease2 = try Self.temporary()
    defer { lease2.finish() }
    let n2 = try Self.replay(Self.session(swipes: 800), store: lease2)
    #expect(n.swipes == 400 && n2.swipes == 800)
    // Growth doubles the capacity: about log2(400) ≈ 9 moves per array; a copy per swipe
    // would be ~400 and ~800.
    #expect(n.moves <= 30, "\(n.moves) moves for 400 swipes")
    #expect(n2.moves <= n.moves + 6, "\(n2.moves) moves for 800 swipes against \(n.moves) for 400")
  }

  @Test("the counter sees copies: a store that keeps every snapshot makes a copy per swipe")
  func counterSeesCopies() throws {
    let s = try Self.session(swipes: 200)
    let eager = MemoryPixStore()
    #expect(eager.wantsEverySnapshot)
    let r = try Self.replay(s, store: eager)
    #expect(r.moves >= 200, "\(r.moves) moves for 200 swipes")
    #expect(eager.saves >= 200)
    // The same trace either way.
    let lease = try Self.temporary()
    defer { lease.finish() }
    #expect(try Self.replay(s, store: lease).trace == r.trace)
  }

  @Test("each corpus scenario with a kill relaunches from the same store on demand as saved after every step", arguments: PixScanSeamTests.files())
  func killsRestoreTheSameStore(_ name: String) throws {
    let text = try String(contentsOf: PixScanSeamTests.dir.appendingPathComponent(name), encoding: .utf8)
    guard text.contains("app_kill") else { return }
    let s = try PixScenario.parse(yaml: text, file: name)
    let lease = try Self.temporary()
    defer { lease.finish() }
    let onDemand = try Self.replay(s, store: lease)
    let eagerStore = MemoryPixStore()
    let eager = try Self.replay(s, store: eagerStore)
    #expect(onDemand.trace == eager.trace)
    // At the end the temporary store holds the last flushed store, as the eager one does.
    #expect(try lease.load() == eagerStore.stored)
  }
}
