/// A malformed chunk payload (internal; callers wrap it in a `RecordingError` naming the chunk).
struct CodecError: Error {
  var message: String
  init(_ message: String) { self.message = message }
}

/// The payload layouts a channel's chunks may use (`channels.encoding`, docs/FORMAT-jprec.md §5).
enum EventEncoding: String, CaseIterable, Sendable {
  /// One head/tail stream pair for every value (§5.1). Read, no longer written.
  case v1 = "jprec-events/1"
  /// The same values in four lanes, each a head/tail stream pair (§5.6), each stream compressed
  /// as its own zstd frame.
  case v2 = "jprec-events/2"

  /// The encoding `Recorder` writes.
  static let written = EventEncoding.v2

  /// The lanes of a payload: 1, or `Lane.count`.
  var laneCount: Int { self == .v1 ? 1 : Lane.count }
}

/// Where a value goes in a `jprec-events/2` payload: values of one kind of distribution together,
/// so each zstd frame holds one of them (§5.6). In `jprec-events/1` every lane is lane 0.
enum Lane: Int {
  /// Everything not below: event headers, flags, masks, luma planes, JSON fields.
  case events = 0
  /// Body joint x and y deltas.
  case jointXY = 1
  /// Body joint confidence deltas.
  case jointConf = 2
  /// Faces: their count, flags and slot deltas.
  case faces = 3

  static let count = 4
}

/// One head/tail stream pair: the *head* stream gets the first byte of every varint, the *tail*
/// stream the remaining bytes of varints and raw byte strings. Similar bytes end up together,
/// which zstd's entropy coder rewards.
struct ByteStreams {
  var head: [UInt8] = []
  var tail: [UInt8] = []

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
}

/// Writes a chunk payload (docs/FORMAT-jprec.md §5.1, §5.6): one head/tail stream pair per lane
/// of its encoding.
struct ByteWriter {
  let encoding: EventEncoding
  var lanes: [ByteStreams]

  init(encoding: EventEncoding = .written) {
    self.encoding = encoding
    lanes = Array(repeating: ByteStreams(), count: encoding.laneCount)
  }

  /// Bytes of the streams (the payload less its stream lengths).
  var count: Int { lanes.reduce(0) { $0 + $1.head.count + $1.tail.count } }

  /// Bytes of the payload: the streams and their lengths.
  var payloadCount: Int {
    var lengths = lanes.flatMap { [$0.head.count, $0.tail.count] }
    lengths.removeLast()
    return lengths.reduce(count) { n, l in n + (Int.bitWidth - max(l, 1).leadingZeroBitCount + 6) / 7 }
  }

  @inline(__always)
  mutating func varint(_ v: UInt64, _ lane: Lane = .events) {
    lanes[encoding == .v1 ? 0 : lane.rawValue].varint(v)
  }

  @inline(__always)
  mutating func zigzag(_ v: Int64, _ lane: Lane = .events) { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63)), lane) }

  /// Raw bytes, to the tail stream of lane 0.
  mutating func raw<C: Collection>(_ b: C) where C.Element == UInt8 { lanes[0].tail.append(contentsOf: b) }

  /// The stream sizes, to go back to with `truncate(to:)`.
  var mark: [Int] { lanes.flatMap { [$0.head.count, $0.tail.count] } }

  /// Drops what was written after `mark`.
  mutating func truncate(to mark: [Int]) {
    for i in lanes.indices {
      lanes[i].head.removeSubrange(mark[2 * i]...)
      lanes[i].tail.removeSubrange(mark[2 * i + 1]...)
    }
  }

  /// Bytes written since `mark`.
  func bytes(since mark: [Int]) -> Int { count - mark.reduce(0, +) }

  /// The chunk payload: the lengths of every stream but the last (varints), then the streams
  /// (lane 0 head, lane 0 tail, lane 1 head, …).
  func payload() -> [UInt8] { segmentedPayload().bytes }

  /// The payload and the end offset of each of its streams (the first stream's segment
  /// includes the lengths): the writer compresses each segment as its own zstd frame.
  func segmentedPayload() -> (bytes: [UInt8], ends: [Int]) {
    var out = [UInt8]()
    out.reserveCapacity(count + 10 * 2 * lanes.count)
    var lengths = lanes.flatMap { [$0.head.count, $0.tail.count] }
    lengths.removeLast()
    for n in lengths {
      var n = UInt64(n)
      while n >= 0x80 {
        out.append(UInt8(truncatingIfNeeded: n) | 0x80)
        n >>= 7
      }
      out.append(UInt8(truncatingIfNeeded: n))
    }
    var ends: [Int] = []
    for l in lanes {
      out.append(contentsOf: l.head)
      ends.append(out.count)
      out.append(contentsOf: l.tail)
      ends.append(out.count)
    }
    return (out, ends)
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
    var p = 0
    let n = try Self.streamLength(base, count: buffer.count, at: &p, named: "its head-stream", "head-stream")
    guard n <= UInt64(buffer.count - p) else {
      throw CodecError("head stream of \(n) bytes does not fit in the \(buffer.count - p) bytes of the chunk")
    }
    hPos = p
    hEnd = p + Int(n)
    tPos = hEnd
    tEnd = buffer.count
  }

  /// The lanes of a `jprec-events/2` payload (§5.6): `lanes` head/tail stream pairs, each
  /// stream's length but the last's stated up front.
  static func lanes(_ buffer: UnsafeRawBufferPointer, count lanes: Int) throws(CodecError) -> [ByteReader] {
    let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? ByteReader.emptyBase
    var p = 0
    var lengths: [Int] = []
    var total = 0
    for s in 0..<(2 * lanes - 1) {
      let n = try Self.streamLength(base, count: buffer.count, at: &p, named: "the stream \(s)", "stream \(s)")
      // The streams stated so far and the lengths read so far fit: no overflow.
      let left = buffer.count - p - total
      guard left >= 0, n <= UInt64(left) else {
        throw CodecError("stream \(s) of \(n) bytes does not fit in the \(max(left, 0)) bytes left in the chunk")
      }
      lengths.append(Int(n))
      total += Int(n)
    }
    lengths.append(buffer.count - p - total)
    var readers: [ByteReader] = []
    readers.reserveCapacity(lanes)
    for l in 0..<lanes {
      let h = p + lengths[2 * l]
      let t = h + lengths[2 * l + 1]
      readers.append(ByteReader(base: base, head: p, tail: h, end: t))
      p = t
    }
    return readers
  }

  /// A stream length: a plain varint at `base[p]`, `p` moved past it. `inside` and `what` name
  /// the stream in the messages ("chunk payload ends inside its head-stream length",
  /// "head-stream length longer than 64 bits").
  static func streamLength(
    _ base: UnsafePointer<UInt8>, count: Int, at p: inout Int, named inside: String, _ what: String
  ) throws(CodecError) -> UInt64 {
    var n: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard p < count else { throw CodecError("chunk payload ends inside \(inside) length") }
      let b = base[p]
      p += 1
      guard shift < 63 else { throw CodecError("\(what) length longer than 64 bits") }
      n |= UInt64(b & 0x7F) << shift
      if b < 0x80 { return n }
      shift += 7
    }
  }

  /// A reader of the head stream `base[head..<tail]` and the tail stream `base[tail..<end]`.
  init(base: UnsafePointer<UInt8>, head: Int, tail: Int, end: Int) {
    self.base = base
    hPos = head
    hEnd = tail
    tPos = tail
    tEnd = end
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
    guard hPos < hEnd else { throw Self.headEnded(hPos) }
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
    // The slow path takes and returns the tail position by value: a reader whose address
    // never escapes stays in registers in the decoding loops.
    let (v, t) = try Self.tailSlow(base, b & 0x7F, at: tPos, end: tEnd)
    tPos = t
    return v
  }

  /// The rest of a varint of three or more bytes (or one whose tail stream has ended), from
  /// `base[t..<tEnd]`: its value and the tail position after it.
  @inline(never)
  static func tailSlow(_ base: UnsafePointer<UInt8>, _ low: UInt64, at t: Int, end tEnd: Int) throws(CodecError) -> (UInt64, Int) {
    var result = low
    var shift: UInt64 = 7
    var tPos = t
    while true {
      guard tPos < tEnd else { throw CodecError("a varint runs past the end of the tail stream") }
      let b = base[tPos]
      tPos += 1
      if shift == 63 && b > 1 { throw CodecError("varint longer than 64 bits in the tail stream at byte \(tPos - 1)") }
      result |= UInt64(b & 0x7F) << shift
      if b < 0x80 { return (result, tPos) }
      shift += 7
      if shift > 63 { throw CodecError("varint longer than 64 bits") }
    }
  }

  /// The error of a read past the end of the head stream (out of line: the message is built
  /// only when thrown).
  @inline(never)
  static func headEnded(_ hPos: Int) -> CodecError { CodecError("the head stream ends early (at byte \(hPos))") }

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
