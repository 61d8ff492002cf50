import EngineIO
import PoseSpec

/// A cue id interned once per display machine (``CueDisplayMachine/Table``), so that the
/// signals of the display step can point at it without retaining it.
final class CueName: Sendable {
  let id: String
  init(_ id: String) { self.id = id }
}

/// What the gate sees and shows: a cue with a level, or nothing (`id == nil`, level none).
///
/// The cue is held as its ``CueName``, unretained: the engine's signals name an interned name,
/// which the display machine's table keeps for the engine's lifetime (a replan keeps the
/// names it had), so copying and dropping a signal retains and releases nothing. A cue id
/// longer than 15 bytes is a heap string; as a `String` field it was retained and released
/// about ten times per T0 evaluation (the selector's input, the gate's input and output, the
/// display's record of them). A signal made from an id (`init(id:level:)`: tests, a decision
/// whose id is no plan's) owns a name of its own.
struct GateSignal: Equatable, @unchecked Sendable {
  /// The name, unretained (an opaque pointer: ordinary spare bits, see PERFORMANCE.md's eighth
  /// round on `unowned(unsafe)` optionals in debug builds); nil for no cue.
  private let name: UnsafeRawPointer?
  /// The name when this signal made it (nil for an interned one); it keeps `name` alive.
  private let own: CueName?
  var level: CueLevel

  static let empty = GateSignal(id: nil, level: .none)

  /// A signal with a name of its own.
  init(id: String?, level: CueLevel) {
    let made = id.map(CueName.init)
    own = made
    name = made.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
    self.level = id == nil ? .none : level
  }

  /// A signal naming the interned name at `interned` (`Unmanaged<CueName>`'s opaque pointer),
  /// which its table keeps alive for as long as the signal is used.
  init(interned: UnsafeRawPointer, level: CueLevel) {
    own = nil
    name = interned
    self.level = level
  }

  /// This signal's cue (or none) at `level` (none without a cue).
  func at(_ level: CueLevel) -> GateSignal {
    var s = self
    s.level = name == nil ? .none : level
    return s
  }

  /// The cue's id, nil for none (a copy of the string: for records and look-ups, not per frame).
  var id: String? {
    guard let name else { return nil }
    return Unmanaged<CueName>.fromOpaque(name).takeUnretainedValue().id
  }

  /// No cue (`id == nil`), without reading the id.
  var isNone: Bool { name == nil }

  /// The same cue (or both none), whatever the levels. Two interned names are the same cue
  /// exactly when they are the same name (one table interns each id once); otherwise the ids
  /// are compared.
  func sameCue(as other: GateSignal) -> Bool {
    if name == other.name { return true }
    if own == nil && other.own == nil {
      #if DEBUG
        // Debug builds only: the check reads both ids (string copies), per frame.
        EngineInvariant.check(id != other.id, "display: two interned names for \(id ?? "none")")
      #endif
      return false
    }
    return id == other.id
  }

  static func == (a: GateSignal, b: GateSignal) -> Bool { a.level == b.level && a.sameCue(as: b) }
}
