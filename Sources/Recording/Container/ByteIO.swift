/// A malformed chunk payload (internal; callers wrap it in a `RecordingError` naming the chunk).
struct CodecError: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

/// Writes a chunk payload as two streams (docs/FORMAT-jprec.md §5.1): the *head* stream gets
/// the first byte of every varint, the *tail* stream the remaining bytes of varints and raw byte
/// strings. Similar bytes end up together, which zstd's entropy coder rewards.
struct ByteWriter {
  var head: [UInt8] = []
  var tail: [UInt8] = []

  var count: Int { head.count + tail.count }

  @inline(__always)
  mutating func varint(_ v: UInt64) {
    if v < 0x80 {
      head.append(UInt8(truncatingIfNeeded: v))
      return
    }
    head.append(UInt8(truncatingIfNeeded: v) | 0x80)
    var v = v >> 7
    while v >= 0x80 {
      tail.append(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    tail.append(UInt8(truncatingIfNeeded: v))
  }

  @inline(__always)
  mutating func zigzag(_ v: Int64) { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

  mutating func raw<C: Collection>(_ b: C) where C.Element == UInt8 { tail.append(contentsOf: b) }

  mutating func truncate(head h: Int, tail t: Int) {
    head.removeSubrange(h...)
    tail.removeSubrange(t...)
  }

  /// The chunk payload: varint(head length) ‖ head ‖ tail.
  func payload() -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(count + 5)
    var n = UInt64(head.count)
    while n >= 0x80 {
      out.append(UInt8(truncatingIfNeeded: n) | 0x80)
      n >>= 7
    }
    out.append(UInt8(truncatingIfNeeded: n))
    out.append(contentsOf: head)
    out.append(contentsOf: tail)
    return out
  }
}

/// Bounds-checked reading of a chunk payload: every read past the end of a stream throws,
/// never traps.
struct ByteReader {
  let base: UnsafePointer<UInt8>
  var hPos: Int
  let hEnd: Int
  var tPos: Int
  let tEnd: Int

  /// Splits `buffer` (a whole chunk payload) into its head and tail streams.
  init(_ buffer: UnsafeRawBufferPointer) throws(CodecError) {
    base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? ByteReader.emptyBase
    // The head length: a plain varint at the start of the payload.
    var n: UInt64 = 0
    var shift: UInt64 = 0
    var p = 0
    while true {
      guard p < buffer.count else { throw CodecError("chunk payload ends inside its head-stream length") }
      let b = base[p]
      p += 1
      guard shift < 63 else { throw CodecError("head-stream length longer than 64 bits") }
      n |= UInt64(b & 0x7F) << shift
      if b < 0x80 { break }
      shift += 7
    }
    guard n <= UInt64(buffer.count - p) else {
      throw CodecError("head stream of \(n) bytes does not fit in the \(buffer.count - p) bytes of the chunk")
    }
    hPos = p
    hEnd = p + Int(n)
    tPos = hEnd
    tEnd = buffer.count
  }

  /// A reader with nothing to read.
  init() {
    base = ByteReader.emptyBase
    hPos = 0
    hEnd = 0
    tPos = 0
    tEnd = 0
  }

  nonisolated(unsafe) static let emptyBase: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    p.initialize(to: 0)
    return UnsafePointer(p)
  }()

  var headRemaining: Int { hEnd - hPos }
  var tailRemaining: Int { tEnd - tPos }
  var atEnd: Bool { hPos == hEnd && tPos == tEnd }

  @inline(__always)
  mutating func varint() throws(CodecError) -> UInt64 {
    guard hPos < hEnd else { throw CodecError("the head stream ends early (at byte \(hPos))") }
    let b = UInt64(base[hPos])
    hPos &+= 1
    // Continuation bytes come from the tail stream. One- and two-byte varints (almost all of
    // them) are decoded without a data-dependent branch: whether a landmark delta needs a
    // second byte is a coin toss, and a mispredicted branch costs more than the arithmetic.
    if tPos < tEnd {
      let c = UInt64(base[tPos])
      let cont = b >> 7
      if (c >> 7) & cont == 0 {
        tPos &+= Int(truncatingIfNeeded: cont)
        return (b & 0x7F) | ((c << 7) & (0 &- cont))
      }
    } else if b < 0x80 {
      return b
    }
    return try tailSlow(b & 0x7F)
  }

  @inline(never)
  mutating func tailSlow(_ low: UInt64) throws(CodecError) -> UInt64 {
    var result = low
    var shift: UInt64 = 7
    while true {
      guard tPos < tEnd else { throw CodecError("a varint runs past the end of the tail stream") }
      let b = base[tPos]
      tPos += 1
      if shift == 63 && b > 1 { throw CodecError("varint longer than 64 bits in the tail stream at byte \(tPos - 1)") }
      result |= UInt64(b & 0x7F) << shift
      if b < 0x80 { return result }
      shift += 7
      if shift > 63 { throw CodecError("varint longer than 64 bits") }
    }
  }

  @inline(__always)
  mutating func zigzag() throws(CodecError) -> Int64 {
    let u = try varint()
    return Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1)
  }

  /// A varint that must be ≤ `max` (a count or length), as an Int.
  @inline(__always)
  mutating func count(max: Int, _ what: @autoclosure () -> String) throws(CodecError) -> Int {
    let v = try varint()
    guard v <= UInt64(max) else {
      throw CodecError("\(what()) \(v) is larger than the \(max) that fit in the rest of the chunk")
    }
    return Int(v)
  }

  /// `n` raw bytes from the tail stream.
  mutating func bytes(_ n: Int) throws(CodecError) -> [UInt8] {
    guard n >= 0, n <= tailRemaining else { throw CodecError("\(n) bytes run past the end of the chunk") }
    let out = Array(UnsafeBufferPointer(start: base + tPos, count: n))
    tPos += n
    return out
  }

  /// `n` raw bytes of the tail stream without copying; `n` must be ≤ `tailRemaining`.
  mutating func rawBuffer(_ n: Int) -> UnsafeRawBufferPointer {
    let b = UnsafeRawBufferPointer(start: base + tPos, count: n)
    tPos += n
    return b
  }
}
