import CanonicalJSON
import Foundation
import PoseSpec
import Testing

/// Hostile PoseSpecs against the named bounds of `PoseSpecLimits` (issue 12 C3/H3): each is
/// refused with a validation error naming the place and the bound — never a stack overflow,
/// a hang or gigabytes of memory. Every load runs on a 512 KiB thread stack, so passing here
/// also proves the limits do not depend on the thread (`--jobs` workers have bigger stacks).
@Suite("Hostile PoseSpecs: limits (ENGINE §2.3, §2.9)")
struct HostileSpecLimitTests {
  /// Loads `bytes` on a 512 KiB stack; the error, or nil when the spec loads.
  func failure(_ bytes: [UInt8]) -> PoseSpecValidationError? {
    HostileSpec.onThread(stackKiB: 512) { HostileSpec.failure(bytes) }
  }

  /// The project spec with FRAME_MOVE_LEFT's formula replaced.
  func withFormula(_ formula: String, aliases: [(String, String)] = []) throws -> [UInt8] {
    let i = try HostileSpec.cueIndex("FRAME_MOVE_LEFT")
    return try HostileSpec.mutated { root in
      HostileSpec.set(.string(formula), at: ["cues", "\(i)", "metric", "formula"], in: &root)
      HostileSpec.addAliases(aliases, in: &root)
    }
  }

  func formulaFailure(_ bytes: [UInt8]) throws -> FormulaCompileError {
    let e = try #require(failure(bytes))
    #expect(e.kind == .formulaInvalid, "\(e)")
    #expect(e.promptKey == PoseSpecPrompt.invalidKey)
    return try #require(e.formula)
  }

  @Test("The project spec loads unchanged on a 512 KiB stack, with no warning")
  func projectSpecLoads() throws {
    let bytes = try HostileSpec.projectBytes()
    #expect(failure(bytes) == nil)
    let doc = try PoseSpecLoader.load(bytes: bytes)
    #expect(doc.cues.count == 50)
    #expect(doc.warnings.isEmpty)
  }

  @Test("§2.9: 100,000 unary minuses stop at formulaDepthMax with the column")
  func unaryMinuses() throws {
    let long = try formulaFailure(try withFormula("x = " + String(repeating: "-", count: 100_000) + "1"))
    #expect(long.message.contains("formulaBytesMax = \(PoseSpecLimits.formulaBytesMax)"), "\(long)")
    // 10,000 (above the ~6,200 that overflowed the stack before) is under the byte bound.
    let f = try formulaFailure(try withFormula("x = " + String(repeating: "-", count: 10_000) + "1"))
    #expect(f.cueId == "FRAME_MOVE_LEFT")
    #expect(f.place == "metric.formula")
    #expect(f.message.contains("formulaDepthMax = \(PoseSpecLimits.formulaDepthMax)"))
    #expect(f.column == 5 + PoseSpecLimits.formulaDepthMax - 1)  // the formulaDepthMax-th sign: one fewer and a leaf fit
  }

  @Test("§2.9: 3,000 nested parentheses and 3,000 nested calls stop at formulaDepthMax")
  func nestedParentheses() throws {
    let n = 3_000  // 100,000 stop at formulaBytesMax first
    for (open, close) in [("(", ")"), ("abs(", ")")] {
      let text = "x = " + String(repeating: open, count: n) + "1" + String(repeating: close, count: n)
      let f = try formulaFailure(try withFormula(text))
      #expect(f.message.contains("formulaDepthMax"), "\(f)")
      #expect(f.column < 5 + (PoseSpecLimits.formulaDepthMax + 1) * open.count)
    }
  }

  @Test("§2.9: an operator chain 100,000 long (a tree, not a recursion) stops at formulaDepthMax")
  func longOperatorChain() throws {
    let text = "x = 1" + String(repeating: " + lShoulder.x", count: 100_000)
    #expect(text.utf8.count > PoseSpecLimits.formulaBytesMax)
    let long = try formulaFailure(try withFormula(text))
    #expect(long.message.contains("formulaBytesMax = \(PoseSpecLimits.formulaBytesMax)"), "\(long)")
    // Under the byte bound the tree height is what stops it.
    let chain = "x = 1" + String(repeating: "+y", count: PoseSpecLimits.formulaDepthMax + 1)
    let f = try formulaFailure(try withFormula(chain))
    #expect(f.message.contains("formulaDepthMax"), "\(f)")
  }

  @Test("§2.5: a 20,000-long alias chain stops at aliasChainMax or formulaDepthMax, at the use")
  func aliasChain() throws {
    let n = 20_000
    var aliases = [("z0", "lShoulder.x")]
    for i in 1..<n { aliases.append(("z\(i)", "z\(i - 1) + 1")) }
    let f = try formulaFailure(try withFormula("error = 2 * z\(n - 1)", aliases: aliases))
    #expect(f.column == 13)  // where z19999 is used in the cue's formula
    #expect(f.token == "z\(n - 1)")
    #expect(
      f.message.contains("aliasChainMax = \(PoseSpecLimits.aliasChainMax)")
        || f.message.contains("formulaDepthMax = \(PoseSpecLimits.formulaDepthMax)"), "\(f)")
  }

  @Test("§2.5: aliases that double (2^22 nodes) or quadruple at each step are refused, fast")
  func exponentialAliases() throws {
    var aliases = [("z0", "lShoulder.x")]
    for i in 1...22 { aliases.append(("z\(i)", "z\(i - 1) + z\(i - 1)")) }
    // Refused by the chain bound before expansion (unbounded, it took 16.8 s and 1.2 GB).
    let f = try formulaFailure(try withFormula("error = z22", aliases: aliases))
    #expect(f.message.contains("aliasChainMax = \(PoseSpecLimits.aliasChainMax)"), "\(f)")
    #expect(f.token == "z22")
    // Within the chain and depth bounds, 8^4 copies of lShoulder.x exceed the node bound.
    var wide = [("q0", "lShoulder.x")]
    for i in 1...4 { wide.append(("q\(i)", "max(" + Array(repeating: "q\(i - 1)", count: 8).joined(separator: ", ") + ")")) }
    let g = try formulaFailure(try withFormula("error = q4", aliases: wide))
    #expect(g.message.contains("formulaNodesMax = \(PoseSpecLimits.formulaNodesMax)"), "\(g)")
    #expect(g.token == "q4")
    #expect(g.column == 9)
  }

  @Test("§2.5: many cues each under formulaNodesMax are refused at specNodesMax for the whole spec")
  func specNodeBudget() throws {
    // w4 compiles to ~1,600 nodes: under the per-cue bound, but 49 cues of it are not.
    var aliases = [("w0", "lShoulder.x")]
    for i in 1...4 { aliases.append(("w\(i)", Array(repeating: "w\(i - 1)", count: 4).joined(separator: " + "))) }
    let bytes = try HostileSpec.mutated { root in
      HostileSpec.addAliases(aliases, in: &root)
      let cues = root["cues"]!.arrayValue!
      for (i, cue) in cues.enumerated() where cue["metric"]?["computeTier"]?.stringValue != "fallback" {
        HostileSpec.set(.string("error = w4"), at: ["cues", "\(i)", "metric", "formula"], in: &root)
        HostileSpec.set(nil, at: ["cues", "\(i)", "metric", "outputs"], in: &root)
        for mode in ["noRef", "withRef"] where cue["trigger"]?[mode]?.objectValue != nil {
          HostileSpec.set(nil, at: ["cues", "\(i)", "trigger", mode, "error"], in: &root)
        }
      }
    }
    let f = try formulaFailure(bytes)
    #expect(f.message.contains("specNodesMax = \(PoseSpecLimits.specNodesMax)"), "\(f)")
    #expect(f.cueIndex > 10)  // several cues compiled before the budget ran out
  }

  @Test("§2.3 #2: JSON nested 100,000 deep (a threshold of nested objects) is invalidJSON at the bound")
  func deepThreshold() throws {
    let n = 100_000
    let i = try HostileSpec.cueIndex("FRAME_MOVE_LEFT")
    let deep = String(repeating: "{\">\":", count: n) + "1" + String(repeating: "}", count: n)
    let e = try #require(failure(try HostileSpec.splicing(deep, at: ["cues", "\(i)", "trigger", "noRef", "warn"])))
    #expect(e.kind == .invalidJSON)
    #expect(e.location?.contains("JSONParser.depthMax = \(JSONParser.depthMax)") == true, "\(e)")
    #expect(e.location?.hasPrefix("line 1, column ") == true)
    #expect(JSONParser.depthMax < 100)  // the parser's debug frames take ~3 KiB a level
    // Arrays too, at the top level.
    let arrays = Array((String(repeating: "[", count: n) + String(repeating: "]", count: n)).utf8)
    #expect(failure(arrays)?.location?.contains("depthMax") == true)
  }

  @Test("JSON at exactly depthMax parses, writes, hashes and frees on a 512 KiB stack")
  func deepestAcceptedJSON() throws {
    let n = JSONParser.depthMax
    let text = String(repeating: "[", count: n) + "0" + String(repeating: "]", count: n)
    let ok = HostileSpec.onThread(stackKiB: 512) { () -> Bool in
      guard let v = try? JSONParser.parse(text) else { return false }
      var h = Hasher()
      h.combine(v)
      _ = h.finalize()
      return JSONWriter.write(v) == text && v == v.sortedRecursively()
    }
    #expect(ok)
    let one = String(repeating: "[", count: n + 1) + String(repeating: "]", count: n + 1)
    #expect(throws: JSONParseError.self) { try JSONParser.parse(one) }
  }

  @Test("A formula exactly formulaDepthMax deep compiles on a 512 KiB stack")
  func deepestAcceptedFormula() throws {
    let n = PoseSpecLimits.formulaDepthMax - 3  // abs(…) levels around error = … lShoulder.x
    let text = "error = " + String(repeating: "abs(", count: n) + "lShoulder.x" + String(repeating: ")", count: n)
    #expect(failure(try withFormula(text)) == nil)
    let deeper = "error = " + String(repeating: "abs(", count: n + 2) + "lShoulder.x" + String(repeating: ")", count: n + 2)
    #expect(failure(try withFormula(deeper))?.kind == .formulaInvalid)
  }

  @Test("The costliest path at the bounds (aliasChainMax hops under formulaDepthMax calls) fits 512 KiB")
  func deepestAcceptedAliasPath() throws {
    // a1 → … → a7 → lShoulder (a binding alias): the 8 names of aliasChainMax, each hop
    // three compiler frames; the rest of formulaDepthMax spent on nested calls.
    var aliases: [(String, String)] = (1..<7).map { ("a\($0)", "a\($0 + 1)") }
    aliases.append(("a7", "lShoulder.x"))
    let calls = PoseSpecLimits.formulaDepthMax - 10  // 7 hops, .x, lShoulder, its body.leftShoulder
    func formula(_ k: Int) -> String {
      "error = " + String(repeating: "abs(", count: k) + "a1" + String(repeating: ")", count: k)
    }
    #expect(failure(try withFormula(formula(calls), aliases: aliases)) == nil)
    let over = try formulaFailure(try withFormula(formula(calls + 1), aliases: aliases))
    #expect(over.message.contains("formulaDepthMax"), "\(over)")
    aliases[6] = ("a7", "a8")
    aliases.append(("a8", "lShoulder.x"))
    let chain = try formulaFailure(try withFormula(formula(1), aliases: aliases))
    #expect(chain.message.contains("aliasChainMax"), "\(chain)")
  }

  @Test("§2.3 #2: a document over specBytesMax is refused before parsing")
  func documentSize() throws {
    var bytes = try HostileSpec.projectBytes()
    bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: PoseSpecLimits.specBytesMax))
    let e = try #require(failure(bytes))
    #expect(e.kind == .invalidJSON)
    #expect(e.location?.contains("specBytesMax = \(PoseSpecLimits.specBytesMax)") == true, "\(e)")
  }

  @Test("More cues than cuesMax is valueInvalid")
  func tooManyCues() throws {
    let bytes = try HostileSpec.mutated { root in
      let cue = root["cues"]!.arrayValue![0].objectValue!
      let copies = (0...PoseSpecLimits.cuesMax).map { k -> JSONValue in
        var c = cue
        c["id"] = .string("CUE_\(k)")
        return .object(c)
      }
      root["cues"] = .array(copies)
    }
    let e = try #require(failure(bytes))
    #expect(e.kind == .valueInvalid)
    #expect(e.location?.contains("cuesMax = \(PoseSpecLimits.cuesMax)") == true, "\(e)")
  }
}
