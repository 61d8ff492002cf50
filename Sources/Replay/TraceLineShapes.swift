import CanonicalJSON

/// The layouts of the trace lines a sink has written, so that a line of a layout seen before
/// is written without sorting its keys or writing them again: a line's *shape* is its `out`
/// and its field keys in the record's order. Everything of a line but its values is the same
/// for every line of one shape: the keys in key order with `out` and `t` merged in, the
/// punctuation and `out`'s value. A shape keeps that text as fragments, one before each value
/// (a field's value or `t`) and one closing the line, so a line of a known shape is its
/// fragments and its values, the values written as ``TraceFormat/append(_:to:)`` writes them.
///
/// A shape is made from the first line of its layout by the walk ``TraceFormat/append(_:to:)``
/// itself uses (``TraceFormat/layOut(_:_:into:value:)``), so the bytes are those of that
/// writer (`TraceFormatTests`). A line with a field named `t` or `out` or a key
/// twice gets no shape (the writer's slow path). At most ``limit`` shapes are kept; a line
/// of another layout once they are taken is written by ``TraceFormat/append(_:to:)``. Only a
/// new shape allocates: a line of a known shape allocates nothing.
public struct TraceLineShapes: Sendable {
  /// The most shapes kept (PixScan's 5,000-photo session has 15, a Just Photo replay fewer
  /// than 40).
  public static let limit = 64

  struct Shape: Sendable {
    /// ``JSONBytes/keyPrefix(_:)`` of `out`: a shape of another `out` is passed over with
    /// one integer comparison.
    var outPrefix: UInt64
    var out: String
    /// The field keys in the record's order.
    var keys: [String]
    /// What each value is, in the line's order: a field's position in the record, or -1 for `t`.
    var slots: [Int]
    /// The fragments one after another: the text before each slot's value, then the text
    /// after the last.
    var text: [UInt8]
    /// Where each fragment but the last ends in `text` (`slots.count` of them).
    var ends: [Int]
    /// Whether `out` and every key are ASCII (`matches` compares them by length and `==`).
    var ascii: Bool
  }

  var shapes: [Shape] = []

  /// No shapes yet.
  public init() {}

  /// How many shapes are kept.
  public var count: Int { shapes.count }

  /// Appends the canonical line of `record` (without the newline) to `bytes`: the bytes of
  /// ``TraceFormat/append(_:to:)``, through the record's shape (made and kept if it is new
  /// and there is room).
  public mutating func append(_ record: TraceRecord, to bytes: inout JSONBytes) {
    let members = record.fields.members
    let prefix = JSONBytes.keyPrefix(record.out)
    var found = -1
    for s in shapes.indices where shapes[s].outPrefix == prefix && Self.matches(&shapes[s], record.out, members) {
      found = s
      break
    }
    if found < 0 {
      guard shapes.count < Self.limit, let shape = Self.shape(of: record, outPrefix: prefix) else {
        return TraceFormat.append(record, to: &bytes)
      }
      shapes.append(shape)
      found = shapes.count - 1
    }
    Self.write(record, members, &shapes[found], to: &bytes)
  }

  /// Whether `out` and the keys of `members` are those of `shape`, in its order, byte for
  /// byte. (`inout`, here and in `write`: the shape is read in place, its arrays not retained.)
  @inline(__always)
  static func matches(_ shape: inout Shape, _ out: String, _ members: [JSONMember]) -> Bool {
    guard shape.keys.count == members.count else { return false }
    if shape.ascii {
      guard sameAsASCII(shape.out, out) else { return false }
      for i in members.indices where !sameAsASCII(shape.keys[i], members[i].key) { return false }
    } else {
      guard sameBytes(shape.out, out) else { return false }
      for i in members.indices where !sameBytes(shape.keys[i], members[i].key) { return false }
    }
    return true
  }

  /// Whether `b` has the bytes of `a`, whose bytes are all ASCII: the same UTF-8 length and
  /// equal strings. Swift's `==` is canonical equivalence ("é" as one scalar equals "e" and a
  /// combining accent), and a string equivalent to an ASCII one may have other bytes ("K" and
  /// the Kelvin sign U+212A), but only more of them: a scalar whose canonical decomposition
  /// is ASCII decomposes to one ASCII scalar and takes two or more bytes itself.
  @inline(__always)
  static func sameAsASCII(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a == b
  }

  /// Whether `a` and `b` have the same UTF-8 bytes (any text).
  static func sameBytes(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
  }

  /// Whether every UTF-8 byte of `s` is ASCII.
  static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }

  /// The line of `record` (whose shape is `shape`): each fragment, then its slot's value.
  static func write(_ record: TraceRecord, _ members: [JSONMember], _ shape: inout Shape, to bytes: inout JSONBytes) {
    shape.text.withUnsafeBufferPointer { text in
      var from = 0
      for k in shape.slots.indices {
        let to = shape.ends[k]
        bytes.raw(UnsafeBufferPointer(rebasing: text[from..<to]))
        from = to
        TraceFormat.writeValue(shape.slots[k], record, members, &bytes)
      }
      bytes.raw(UnsafeBufferPointer(rebasing: text[from...]))
    }
  }

  /// The shape of `record`'s layout: ``TraceFormat/layOut(_:_:into:value:)``'s text with
  /// each value left out (a fragment ends where a value would be written); nil for a line
  /// that walk does not lay out (a field named `t` or `out`, or a key twice).
  static func shape(of record: TraceRecord, outPrefix: UInt64) -> Shape? {
    let members = record.fields.members
    var text = JSONBytes()
    var slots: [Int] = []
    var ends: [Int] = []
    let laidOut = TraceFormat.layOut(record, members, into: &text) { slot, text in
      ends.append(text.count)
      slots.append(slot)
    }
    guard laidOut else { return nil }
    let keys = members.map(\.key)
    return Shape(
      outPrefix: outPrefix, out: record.out, keys: keys, slots: slots, text: text.bytes, ends: ends,
      ascii: isASCII(record.out) && keys.allSatisfy(isASCII))
  }
}
