/// Opcodes of the MCAP records this writer makes (https://mcap.dev/spec, major version 0).
enum MCAPOp: UInt8 {
  case header = 0x01, footer = 0x02, schema = 0x03, channel = 0x04, message = 0x05, chunk = 0x06
  case messageIndex = 0x07, chunkIndex = 0x08, statistics = 0x0B, summaryOffset = 0x0E, dataEnd = 0x0F
}

/// A little-endian byte builder for MCAP records: fixed-width integers, `u32`-prefixed
/// strings, and records as opcode + `u64` content length + content.
struct MCAPBytes {
  var bytes: [UInt8] = []

  var count: Int { bytes.count }

  mutating func u8(_ v: UInt8) { bytes.append(v) }
  mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
  mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
  mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
  /// A `u32`-length-prefixed UTF-8 string.
  mutating func string(_ s: String) {
    var s = s
    s.withUTF8 { u in
      u32(UInt32(u.count))
      bytes.append(contentsOf: u)
    }
  }
  mutating func raw(_ b: [UInt8]) { bytes.append(contentsOf: b) }
  mutating func raw(_ b: UnsafeRawBufferPointer) { bytes.append(contentsOf: b) }

  /// Appends a record: `op`, the content's length, then the content `body` appends.
  mutating func record(_ op: MCAPOp, _ body: (inout MCAPBytes) -> Void) {
    u8(op.rawValue)
    let lengthAt = bytes.count
    u64(0)
    let start = bytes.count
    body(&self)
    let n = UInt64(bytes.count - start).littleEndian
    withUnsafeBytes(of: n) { p in
      for i in 0..<8 { bytes[lengthAt + i] = p[i] }
    }
  }

  /// A `Map<string, string>`: its byte length (`u32`), then each key and value as a string.
  mutating func stringMap(_ pairs: [(String, String)]) {
    var inner = MCAPBytes()
    for (k, v) in pairs {
      inner.string(k)
      inner.string(v)
    }
    u32(UInt32(inner.count))
    raw(inner.bytes)
  }

  mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }
}
