/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF — the
/// zlib / PNG / gzip CRC), slicing-by-8. `CRC32.checksum("123456789") == 0xCBF43926`.
package enum CRC32 {
  static let tables: [UInt32] = {
    var t = [UInt32](repeating: 0, count: 8 * 256)
    for i in 0..<256 {
      var c = UInt32(i)
      for _ in 0..<8 { c = (c & 1) != 0 ? (0xEDB8_8320 ^ (c >> 1)) : (c >> 1) }
      t[i] = c
    }
    for i in 0..<256 {
      var c = t[i]
      for k in 1..<8 {
        c = t[Int(c & 0xFF)] ^ (c >> 8)
        t[k * 256 + i] = c
      }
    }
    return t
  }()

  package static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard bytes.count > 0 else { return 0 }
    return update(0xFFFF_FFFF, bytes) ^ 0xFFFF_FFFF
  }

  /// The CRC of several byte strings in a row, as if concatenated.
  package static func checksum(parts: [UnsafeRawBufferPointer]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for p in parts { crc = update(crc, p) }
    return crc ^ 0xFFFF_FFFF
  }

  /// Feeds `bytes` into a running (not yet final-xored) CRC register.
  static func update(_ start: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var crc = start
    guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
    let n = bytes.count
    tables.withUnsafeBufferPointer { tp in
      let t = tp.baseAddress!
      var i = 0
      while i + 8 <= n {
        let lo = UInt32(base.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian) ^ crc
        let hi = UInt32(base.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self).littleEndian)
        crc = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
          ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
          ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
          ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
        i += 8
      }
      while i < n {
        crc = t[Int((crc ^ UInt32(base.load(fromByteOffset: i, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
        i += 1
      }
    }
    return crc
  }

  package static func checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0) }
  }
}
