/// CRC-32 as MCAP uses it (IEEE 802.3, reflected polynomial 0xEDB88320, initial value and final
/// xor 0xFFFFFFFF: zlib's `crc32`), eight bytes a step by eight 256-entry tables (slicing-by-8;
/// the first table is the classic byte-at-a-time one, used for the tail).
/// `MCAPCRC32.checksum("123456789")` is 0xCBF43926.
public struct MCAPCRC32: Sendable {
  /// `tables[k << 8 | b]`: the CRC of byte `b` followed by `k` zero bytes.
  static let tables: [UInt32] = {
    var t = [UInt32](repeating: 0, count: 8 * 256)
    for i in 0..<256 {
      var c = UInt32(i)
      for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
      t[i] = c
    }
    for k in 1..<8 {
      for i in 0..<256 {
        let prev = t[(k - 1) << 8 | i]
        t[k << 8 | i] = t[Int(prev & 0xFF)] ^ (prev >> 8)
      }
    }
    return t
  }()

  private var register: UInt32 = 0xFFFF_FFFF

  public init() {}

  /// Feeds `bytes` into the running CRC.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    var c = register
    let n = bytes.count
    var i = 0
    Self.tables.withUnsafeBufferPointer { t in
      while n - i >= 8 {
        let lo = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ c
        let hi = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
        c =
          t[7 << 8 | Int(lo & 0xFF)] ^ t[6 << 8 | Int((lo >> 8) & 0xFF)] ^ t[5 << 8 | Int((lo >> 16) & 0xFF)]
          ^ t[4 << 8 | Int(lo >> 24)] ^ t[3 << 8 | Int(hi & 0xFF)] ^ t[2 << 8 | Int((hi >> 8) & 0xFF)]
          ^ t[1 << 8 | Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
        i += 8
      }
      while i < n {
        c = t[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
        i += 1
      }
    }
    register = c
  }

  public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

  /// The CRC of every byte fed so far.
  public var value: UInt32 { register ^ 0xFFFF_FFFF }

  /// The CRC of `bytes`.
  public static func checksum(_ bytes: [UInt8]) -> UInt32 {
    var c = MCAPCRC32()
    c.update(bytes)
    return c.value
  }
}
