/// CRC-32 as MCAP uses it (IEEE 802.3, reflected polynomial 0xEDB88320, initial value and final
/// xor 0xFFFFFFFF: zlib's `crc32`), by a 256-entry table. `MCAPCRC32.checksum("123456789")`
/// is 0xCBF43926.
public struct MCAPCRC32: Sendable {
  static let table: [UInt32] = (0..<256).map { i -> UInt32 in
    var c = UInt32(i)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  private var register: UInt32 = 0xFFFF_FFFF

  public init() {}

  /// Feeds `bytes` into the running CRC.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    var c = register
    Self.table.withUnsafeBufferPointer { t in
      for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
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
