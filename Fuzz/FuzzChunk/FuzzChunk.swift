import CanonicalJSON
import EngineIO
import FuzzSupport
@testable import Recording


/// libFuzzer target: one input is a decompressed `.jprec` chunk payload (docs/FORMAT-jprec.md
/// "chunk payload"), the part of a recording that byte mutations of a whole file rarely reach
/// (the chunk CRC refuses them first).
///
/// Input layout: byte 0 picks the channel, byte 1 the event count, the rest is the payload.
/// It is decoded with the reader's `EventDecoder` as `ChunkLoader.decodeAll` does (the row's
/// CRC and counts are the whole-file target's part), and the decoded events are replayed
/// through the engine.
/// Seeds: the first chunks of every channel of the seed recordings, decompressed, in this
/// target's input layout (channel, count ≤ 255, payload).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
  FuzzSeeds.writeIfAsked {
    var seeds: [(name: String, bytes: [UInt8])] = []
    for name in FuzzSeeds.recordings {
      let reader = try RecordingReader(path: FuzzSeeds.recordingPath(name), definitions: FuzzReplay.definitions)
      for cursor in reader.cursors {
        for info in cursor.chunks.prefix(2) {
          let raw = try reader.loadChunk(info)
          let channel = UInt8(Channel.allCases.firstIndex(of: cursor.channel)!)
          seeds.append(("\(name)-\(cursor.name)-\(info.id).chunk", [channel, UInt8(min(info.count, 255))] + raw))
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
  let channel = Channel.allCases[Int(data[0]) % Channel.allCases.count]
  let count = Int(data[1])
  let decoder = EventDecoder(kindNames: FuzzReplay.definitions.kindTable, channel: channel, definitions: FuzzReplay.definitions)
  decoder.reset(startT: 0, endT: 1 << 40, firstSeq: 0)
  var events: [InputEvent] = []
  // The loop of ChunkLoader.decodeAll / ChannelCursor.advance: `count` events, then the end.
  do throws(CodecError) {
    let payload = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    var r = try ByteReader(payload)
    for _ in 0..<count { events.append(try decoder.decode(&r).0) }
  } catch {}
  let header: JSONObject = ["format": "jp-replay/1", "initial": .object(["scene": "cafe"])]
  FuzzReplay.replay(header: header, events: events[...])
  return 0
}
