import CYaml

/// The bounds and words of one scenario dialect (the coaching scenarios' `ScenarioLimits`,
/// PixScan's `PixScenarioLimits`): what the guard allows and how its messages name things.
package struct YAMLRules: Sendable {
  /// Deepest nesting of mappings and sequences.
  package var depthMax: Int
  /// Most YAML values (scalars, mappings, sequences) in one file.
  package var nodesMax: Int
  /// The limits type the messages name, e.g. `ScenarioLimits`.
  package var limitsName: String
  /// What the files are called in messages, e.g. `scenario files`.
  package var fileNoun: String
  /// What an empty file should have held, e.g. `a scenario mapping (name, duration_ms, …)`.
  package var expectedRoot: String

  package init(depthMax: Int, nodesMax: Int, limitsName: String, fileNoun: String, expectedRoot: String) {
    self.depthMax = depthMax
    self.nodesMax = nodesMax
    self.limitsName = limitsName
    self.fileNoun = fileNoun
    self.expectedRoot = expectedRoot
  }
}

/// A pre-scan of scenario YAML at the event level, before Yams builds any node: refuses
/// anchors and aliases (`&a`, `*a`: a few hundred bytes of aliases expand to gigabytes, the
/// "billion laughs"), nesting deeper than the dialect's `depthMax` (Yams' composer recurses
/// once per level) and more than its `nodesMax` nodes. libyaml's parser keeps its own stack on
/// the heap, so the scan itself is flat and linear in the text.
///
/// Syntax errors are left to the composer, which reports them at the same place.
package enum YAMLGuard {
  package static func check(_ text: String, file: String, rules: YAMLRules) throws(ScenarioError) {
    var bytes = Array(text.utf8)
    guard !bytes.isEmpty else { return }  // the composer reports an empty file
    if let e = bytes.withUnsafeMutableBufferPointer({ scan($0, file: file, rules: rules) }) { throw e }
  }

  private static func scan(_ buffer: UnsafeMutableBufferPointer<UInt8>, file: String, rules: YAMLRules) -> ScenarioError? {
    let tooDeep = "YAML nesting deeper than \(rules.depthMax) levels (\(rules.limitsName).yamlDepthMax); flatten the structure"
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) == 1 else { return ScenarioError(file: file, "YAML: cannot start the parser (out of memory)") }
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
        return ScenarioError(
          file: file, line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1,
          tooDeep)
      }
      defer { yaml_event_delete(&event) }
      // libyaml marks count from 0; messages (like Yams') from 1.
      func fail(_ message: String) -> ScenarioError {
        ScenarioError(file: file, line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1, message)
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
        return fail("YAML alias *\(name): anchors and aliases are not supported in \(rules.fileNoun); write the value out in full")
      case YAML_SCALAR_EVENT:
        anchor = anchorName(event.data.scalar.anchor)
        nodes += 1
      case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
        anchor = anchorName(
          event.type == YAML_SEQUENCE_START_EVENT ? event.data.sequence_start.anchor : event.data.mapping_start.anchor)
        nodes += 1
        depth += 1
        if depth > rules.depthMax { return fail(tooDeep) }
      case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
        depth -= 1
      default:
        break
      }
      if let anchor {
        return fail("YAML anchor &\(anchor): anchors and aliases are not supported in \(rules.fileNoun); write the value out in full")
      }
      if nodes > rules.nodesMax {
        return fail("more than \(rules.nodesMax) YAML values (\(rules.limitsName).yamlNodesMax); split the scenario")
      }
    }
  }
}
