/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF — the
/// zlib / PNG / gzip CRC), slicing-by-16: 16 bytes a step through 16 tables of 256 entries
/// (16 KiB), half the steps of slicing-by-8 and so half its chain of dependent look-ups (a
/// chunk's CRC is checked on every read: −25 % CPU on 2 MiB; issue 38 item 1). Plain Swift,
/// the same on every platform. `CRC32.checksum("123456789") == 0xCBF43926`.
package enum CRC32 {
  /// Table k maps a byte to the CRC of that byte followed by k zero bytes.
  static let tables: [UInt32] = {
    var t = [UInt32](repeating: 0, count: 16 * 256)
    for i in 0..<256 {
      var c = UInt32(i)
      for _ in 0..<8 { c = (c & 1) != 0 ? (0xEDB8_8320 ^ (c >> 1)) : (c >> 1) }
      t[i] = c
    }
    for i in 0..<256 {
      var c = t[i]
      for k in 1..<16 {
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
      /// Table k's entry for the low byte of `v`.
      @inline(__always) func at(_ k: Int, _ v: UInt32) -> UInt32 { t[k &* 256 &+ Int(v & 0xFF)] }
      @inline(__always) func word(_ o: Int) -> UInt32 {
        UInt32(littleEndian: base.loadUnaligned(fromByteOffset: o, as: UInt32.self))
      }
      var i = 0
      while i &+ 16 <= n {
        let a = word(i) ^ crc
        let b = word(i &+ 4)
        let c = word(i &+ 8)
        let d = word(i &+ 12)
        crc = at(15, a) ^ at(14, a >> 8) ^ at(13, a >> 16) ^ at(12, a >> 24)
          ^ at(11, b) ^ at(10, b >> 8) ^ at(9, b >> 16) ^ at(8, b >> 24)
          ^ at(7, c) ^ at(6, c >> 8) ^ at(5, c >> 16) ^ at(4, c >> 24)
          ^ at(3, d) ^ at(2, d >> 8) ^ at(1, d >> 16) ^ at(0, d >> 24)
        i &+= 16
      }
      while i < n {
        crc = t[Int((crc ^ UInt32(base.load(fromByteOffset: i, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
        i &+= 1
      }
    }
    return crc
  }

  package static func checksum(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0) }
  }
}
