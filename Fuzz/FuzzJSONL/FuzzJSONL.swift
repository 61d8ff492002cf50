import CanonicalJSON
import EngineIO
import FuzzSupport
import Recording

/// libFuzzer target: one input is a JSONL recording (header line, then one event per line).
///
/// Reads it with `JSONLReader` as `jpreplay replay` does, checks that every accepted event
/// prints back (`JSONLEventEncoder`) to a line that decodes to the same event, then replays
/// the events through the engine. A thrown error is fine; a trap, a sanitizer report or a
/// round-trip mismatch is a finding.
/// Seeds: the header and first 29 events of each seed recording, printed as JSONL.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
  FuzzSeeds.writeIfAsked {
    // Without s02: its header inlines a whole PoseSpec (a 120 KB line), too slow to mutate.
    try FuzzSeeds.recordings.filter { $0 != "s02-posespec-alias" }.map { name in
      let reader = try RecordingReader(path: FuzzSeeds.recordingPath(name), definitions: FuzzReplay.definitions)
      var lines = [JSONLEventEncoder.headerLine(reader.header)]
      while lines.count < 30, let e = try reader.next() { lines.append(JSONLEventEncoder.line(e)) }
      return ("\(name).jsonl", Array((lines.joined(separator: "\n") + "\n").utf8))
    }
  }
  return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
  guard let reader = try? JSONLReader(bytes: bytes, path: "fuzz.jsonl", definitions: FuzzReplay.definitions) else { return 0 }
  var events: [InputEvent] = []
  while events.count < FuzzReplay.eventsMax {
    guard let e = try? reader.next() else { break }
    events.append(e)
  }
  for (i, e) in events.enumerated() {
    let line = JSONLEventEncoder.line(e)
    guard let value = try? JSONParser.parse(line) else {
      fatalError("fuzz: event \(i) prints as invalid JSON: \(line)")
    }
    do {
      let back = try JSONLEventDecoder(file: "roundtrip", line: i, definitions: FuzzReplay.definitions).decode(value)
      if back != e { fatalError("fuzz: event \(i) does not survive print + decode: \(line)") }
    } catch {
      fatalError("fuzz: event \(i) prints as a line the decoder refuses (\(error)): \(line)")
    }
  }
  FuzzReplay.replay(header: reader.header, events: events[...])
  return 0
}
