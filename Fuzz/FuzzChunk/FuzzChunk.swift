import CanonicalJSON
import EngineIO
import FuzzSupport
@testable import Recording


/// libFuzzer target: one input is a decompressed `.jprec` chunk payload (docs/FORMAT-jprec.md
/// "chunk payload"), the part of a recording that byte mutations of a whole file rarely reach
/// (the chunk CRC refuses them first).
///
/// Input layout: byte 0 picks the channel (low 7 bits) and the encoding (bit 7: `jprec-events/2`,
/// else `/1`), byte 1 the event count, the rest is the payload.
/// It is decoded with the reader's `EventDecoder` as `ChunkLoader.decodeAll` does (the row's
/// CRC and counts are the whole-file target's part), and the decoded events are replayed
/// through the engine.
/// Seeds: the first chunks of every channel of the seed recordings, decompressed, in this
/// target's input layout (channel and encoding, count ≤ 255, payload).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
  FuzzSeeds.writeIfAsked {
    var seeds: [(name: String, bytes: [UInt8])] = []
    for name in FuzzSeeds.recordings {
      let reader = try RecordingReader(path: FuzzSeeds.recordingPath(name), definitions: FuzzReplay.definitions)
      for cursor in reader.cursors {
        for info in cursor.chunks.prefix(2) {
          let raw = try reader.loadChunk(info)
          let channel = UInt8(Channel.allCases.firstIndex(of: cursor.channel)!) | (cursor.decoder.encoding == .v1 ? 0 : 0x80)
          seeds.append(("\(name)-\(cursor.name)-\(info.id).chunk", [channel, UInt8(min(info.count, 255))] + raw))
          // The same events as the writer encodes them now (jprec-events/2).
          var events: [(InputEvent, Int64)] = []
          try ChunkLoader.decodeAll(raw, info, decoder: cursor.decoder) { events.append(($0, $1)) }
          let kinds = KindTable.index(of: cursor.decoder.kindNames)
          var enc = EventEncoder(startT: info.startMs, firstSeq: info.firstSeq)
          var w = ByteWriter(encoding: .v2)
          for (e, seq) in events.prefix(255) { enc.encode(e, seq: seq, kindIndex: kinds[e.kindName]!, into: &w) }
          seeds.append(
            ("\(name)-\(cursor.name)-\(info.id)-v2.chunk", [channel | 0x80, UInt8(min(events.count, 255))] + w.payload()))
        }
      }
    }
    return seeds
  }
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChunk(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size >= 2 else { return 0 }
  let channel = Channel.allCases[Int(data[0] & 0x7F) % Channel.allCases.count]
  let encoding: EventEncoding = data[0] & 0x80 != 0 ? .v2 : .v1
  let count = Int(data[1])
  let decoder = EventDecoder(kindNames: FuzzReplay.definitions.kindTable, channel: channel, definitions: FuzzReplay.definitions, encoding: encoding)
  decoder.reset(startT: 0, endT: 1 << 40, firstSeq: 0)
  var events: [InputEvent] = []
  // The loop of ChunkLoader.decodeAll / ChannelCursor.advance: `count` events, then the end.
  do throws(CodecError) {
    let payload = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    var r = try decoder.open(payload)
    for _ in 0..<count { events.append(try decoder.decode(&r).0) }
  } catch {}
  let header: JSONObject = ["format": "jp-replay/1", "initial": .object(["scene": "cafe"])]
  FuzzReplay.replay(header: header, events: events[...])
  return 0
}
