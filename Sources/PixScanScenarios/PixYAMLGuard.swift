// Adapted from Sources/Scenarios/YAMLGuard.swift, bounded by PixScenarioLimits.
import CYaml

/// A pre-scan of scenario YAML at the event level, before Yams builds any node: refuses
/// anchors and aliases (`&a`, `*a`: a few hundred bytes of aliases expand to gigabytes, the
/// "billion laughs"), nesting deeper than `PixScenarioLimits.yamlDepthMax` (Yams' composer
/// recurses once per level) and more than `PixScenarioLimits.yamlNodesMax` nodes. libyaml's
/// parser keeps its own stack on the heap, so the scan itself is flat and linear in the text.
///
/// Syntax errors are left to the composer, which reports them at the same place.
enum PixYAMLGuard {
  static func check(_ text: String, file: String) throws(PixScenarioError) {
    var bytes = Array(text.utf8)
    guard !bytes.isEmpty else { return }  // the composer reports an empty file
    if let e = bytes.withUnsafeMutableBufferPointer({ scan($0, file: file) }) { throw e }
  }

  private static func scan(_ buffer: UnsafeMutableBufferPointer<UInt8>, file: String) -> PixScenarioError? {
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) == 1 else { return PixScenarioError(file: file, "YAML: cannot start the parser (out of memory)") }
    defer { yaml_parser_delete(&parser) }
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
    yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
    var depth = 0
    var nodes = 0
    while true {
      var event = yaml_event_t()
      guard yaml_parser_parse(&parser, &event) == 1 else {
        // libyaml's scanner stops at its own nesting limit (1000, above ours) while looking
        // ahead; say which bound was passed. Other syntax errors are the composer's to report.
        guard let problem = parser.problem, String(cString: problem).contains("nesting level") else { return nil }
        return PixScenarioError(
          file: file, line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1,
          "YAML nesting deeper than \(PixScenarioLimits.yamlDepthMax) levels (PixScenarioLimits.yamlDepthMax); flatten the structure")
      }
      defer { yaml_event_delete(&event) }
      // libyaml marks count from 0; messages (like Yams') from 1.
      func fail(_ message: String) -> PixScenarioError {
        PixScenarioError(file: file, line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1, message)
      }
      func anchorName(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        p.map { String(cString: UnsafePointer($0)) }
      }
      var anchor: String?
      switch event.type {
      case YAML_STREAM_END_EVENT:
        return nil
      case YAML_ALIAS_EVENT:
        let name = anchorName(event.data.alias.anchor) ?? ""
        return fail("YAML alias *\(name): anchors and aliases are not supported in PixScan scenario files; write the value out in full")
      case YAML_SCALAR_EVENT:
        anchor = anchorName(event.data.scalar.anchor)
        nodes += 1
      case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
        anchor = anchorName(
          event.type == YAML_SEQUENCE_START_EVENT ? event.data.sequence_start.anchor : event.data.mapping_start.anchor)
        nodes += 1
        depth += 1
        if depth > PixScenarioLimits.yamlDepthMax {
          return fail(
            "YAML nesting deeper than \(PixScenarioLimits.yamlDepthMax) levels (PixScenarioLimits.yamlDepthMax); flatten the structure")
        }
      case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
        depth -= 1
      default:
        break
      }
      if let anchor {
        return fail("YAML anchor &\(anchor): anchors and aliases are not supported in PixScan scenario files; write the value out in full")
      }
      if nodes > PixScenarioLimits.yamlNodesMax {
        return fail("more than \(PixScenarioLimits.yamlNodesMax) YAML values (PixScenarioLimits.yamlNodesMax); split the scenario")
      }
    }
  }
}
