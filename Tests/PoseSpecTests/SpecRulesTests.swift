import CanonicalJSON
import Foundation
import PoseSpec
import Testing

/// Values that decoded but that the engine skipped, defaulted or could never trigger on
/// (issue 12 O1) are validation errors naming the cue and the key, in the invalid modal of
/// ENGINE §2.3 (`valueInvalid`, `formulaInvalid`, `invalidJSON`).
@Suite("Hostile PoseSpecs: value rules (ENGINE §2.3, §3.1, §3.11, §3.12)")
struct SpecRulesTests {
  /// The failure of the project spec edited by `mutate`, loaded on a 512 KiB stack.
  func failure(_ mutate: (inout JSONObject) throws -> Void) throws -> PoseSpecValidationError {
    let bytes = try HostileSpec.mutated(mutate)
    let e = try #require(HostileSpec.onThread(stackKiB: 512) { HostileSpec.failure(bytes) })
    #expect(e.promptKey == PoseSpecPrompt.invalidKey, "\(e)")
    return e
  }

  /// The `valueInvalid` failure of an edit; its `location`.
  func valueFailure(_ mutate: (inout JSONObject) throws -> Void) throws -> String {
    let e = try failure(mutate)
    #expect(e.kind == .valueInvalid, "\(e)")
    #expect(e.messageEn.contains("PoseSpec value invalid: \(e.definitionProblem ?? "?")"))
    return e.location ?? ""
  }

  func cue(_ id: String) throws -> String { "\(try HostileSpec.cueIndex(id))" }

  @Test("A duplicated cue id names both cues")
  func duplicateCueId() throws {
    let location = try valueFailure { root in
      HostileSpec.set("FRAME_MOVE_LEFT", at: ["cues", "1", "id"], in: &root)
    }
    #expect(location == "cues[1] FRAME_MOVE_LEFT id: cue id \"FRAME_MOVE_LEFT\" is also the id of cues[0]; cue ids must be unique")
  }

  @Test("§3.1: thresholds {\">\":\"abc\"}, {\">\":null}, {} and only unknown operators are refused at their key")
  func illTypedThresholds() throws {
    let c = try cue("FRAME_MOVE_LEFT")
    let cases: [(JSONValue, String)] = [
      (.object([">": "abc"]), "trigger.noRef.warn.>: expected a number, found \"abc\""),
      (.object([">": nil]), "trigger.noRef.warn.>: expected a number, found null"),
      (.object([:]), "trigger.noRef.warn: an empty threshold object {}"),
      (.object(["~=": 0.07]), "trigger.noRef.warn: no threshold operator the engine knows"),
    ]
    for (value, expected) in cases {
      let location = try valueFailure { HostileSpec.set(value, at: ["cues", c, "trigger", "noRef", "warn"], in: &$0) }
      #expect(location.hasPrefix("cues[\(c)] FRAME_MOVE_LEFT \(expected)"), "\(location)")
    }
  }

  @Test("§3.1: a threshold object that can never trigger ({}, or exit only) is refused")
  func thresholdSetWithoutTrigger() throws {
    let c = try cue("FRAME_MOVE_LEFT")
    let empty = try valueFailure { HostileSpec.set(.object([:]), at: ["cues", c, "trigger", "withRef"], in: &$0) }
    #expect(empty.hasPrefix("cues[\(c)] FRAME_MOVE_LEFT trigger.withRef: no hard, warn or enter threshold"))
    let exitOnly = try valueFailure { root in
      HostileSpec.set(nil, at: ["cues", c, "trigger", "noRef", "warn"], in: &root)
      HostileSpec.set(.null, at: ["cues", c, "trigger", "noRef", "hard"], in: &root)
    }
    #expect(exitOnly.contains("trigger.noRef: no hard, warn or enter threshold"))
  }

  @Test("§3.1: between with three numbers (which made withRef Match unreachable) is refused")
  func betweenWithThreeNumbers() throws {
    let c = try cue("CHIN_DOWN")
    let location = try valueFailure { root in
      HostileSpec.set(.object(["between": [1, 2, 3]]), at: ["cues", c, "trigger", "noRef", "exit"], in: &root)
    }
    #expect(location == "cues[\(c)] CHIN_DOWN trigger.noRef.exit.between: expected [a, b] (two numbers), found [1,2,3]")
  }

  @Test("§3.11: updateHz ≤ 0, denormal or absurd is refused with the range")
  func updateHz() throws {
    let c = try cue("HIP_SQUARE")
    for hz: JSONValue in [0, -2, 1e-300, 1e9] {
      let location = try valueFailure { HostileSpec.set(hz, at: ["cues", c, "metric", "updateHz"], in: &$0) }
      #expect(location.hasPrefix("cues[\(c)] HIP_SQUARE metric.updateHz: "), "\(location)")
      #expect(location.contains("updateHzMin = 0.001 to updateHzMax = 1000"))
    }
  }

  @Test("§3.9: antiJitter values out of range are refused (a negative hold, an overflowing cooldown)")
  func antiJitterRange() throws {
    let c = try cue("HIP_SQUARE")
    let hold = try valueFailure { HostileSpec.set(-1, at: ["cues", c, "antiJitter", "minHoldMs"], in: &$0) }
    #expect(hold == "cues[\(c)] HIP_SQUARE antiJitter: minHoldMs -1 is out of range: expected 0 … durationMsMax = 86400000 ms")
    let frames = try valueFailure { HostileSpec.set(1e12, at: ["defaults", "antiJitter", "persistFrames"], in: &$0) }
    #expect(frames.hasPrefix("defaults.antiJitter: persistFrames 1000000000000 is out of range"))
  }

  @Test("§2.9: 1/0, a division by a folded constant 0 and an empty formula are formula errors")
  func divisionByZeroAndEmptyFormula() throws {
    let c = try cue("HIP_SQUARE")
    let cases: [(String, Int, String)] = [
      ("error = 1/0", 10, "division by the constant 0"),
      ("error = lShoulder.x / (2 - 2)", 21, "division by the constant 0"),
      ("error = 1e300 * 1e300", 15, "is not a finite number"),
      ("", 1, "the formula is empty"),
      ("  # only a comment", 1, "the formula is empty"),
    ]
    for (formula, column, message) in cases {
      let e = try failure { HostileSpec.set(.string(formula), at: ["cues", c, "metric", "formula"], in: &$0) }
      #expect(e.kind == .formulaInvalid, "\(e)")
      let f = try #require(e.formula)
      #expect(f.cueId == "HIP_SQUARE")
      #expect(f.place == "metric.formula")
      #expect(f.column == column, "\(formula): \(f)")
      #expect(f.message.contains(message), "\(f)")
    }
  }

  @Test("§3.12: praisePolicy.cooldownMs 2500.5 is an error, not a silent 10000")
  func praiseCooldownNotInteger() throws {
    let location = try valueFailure { HostileSpec.set(2500.5, at: ["praisePolicy", "cooldownMs"], in: &$0) }
    #expect(location == "praisePolicy.cooldownMs: expected an integer number of milliseconds, found 2500.5")
    let huge = try valueFailure { HostileSpec.set(9e18, at: ["praisePolicy", "freezeAfterExit", "timeoutMs"], in: &$0) }
    #expect(huge.hasPrefix("praisePolicy.freezeAfterExit.timeoutMs: "))
    #expect(huge.contains("is out of range: expected 0 … durationMsMax = 86400000 ms"))
    let typed = try valueFailure { HostileSpec.set("yes", at: ["praisePolicy", "enabled"], in: &$0) }
    #expect(typed == "praisePolicy.enabled: expected a boolean, found string")
  }

  @Test("§3.12: a frozen praise card with no text (zh: [], or an empty variant) is refused")
  func frozenCardWithoutText() throws {
    let empty = try valueFailure { HostileSpec.set([], at: ["praisePolicy", "freezeAfterExit", "script", "zh"], in: &$0) }
    #expect(empty.hasPrefix("praisePolicy.freezeAfterExit.script.zh: no text"))
    #expect(empty.hasSuffix("(the frozen praise card)"))
    let blank = try valueFailure { HostileSpec.set([""], at: ["praisePolicy", "freezeAfterExit", "script", "en"], in: &$0) }
    #expect(blank.hasPrefix("praisePolicy.freezeAfterExit.script.en: variant 0 is empty"))
    let c = try cue("HIP_SQUARE")
    let cueCard = try valueFailure { HostileSpec.set([], at: ["cues", c, "script", "zh"], in: &$0) }
    #expect(cueCard.hasPrefix("cues[\(c)] HIP_SQUARE script.zh: no text"))
  }

  @Test("§2.3 #2: a key twice in one object is invalidJSON naming the key, line and column")
  func duplicateJSONKey() throws {
    let text = String(decoding: try HostileSpec.projectBytes(), as: UTF8.self)
    let original = "\"praisePolicy\": {\n    \"enabled\": true,"
    let range = try #require(text.range(of: original))
    let spliced = text.replacingCharacters(in: range, with: original + " \"enabled\": false,")
    let line = text[..<range.lowerBound].filter { $0 == "\n" }.count + 2
    let e = try #require(HostileSpec.onThread(stackKiB: 512) { HostileSpec.failure(Array(spliced.utf8)) })
    #expect(e.kind == .invalidJSON)
    #expect(e.location == "line \(line), column 22: duplicate key \"enabled\" in an object (each key may appear once; remove one)")
    // One JSON rule (issue 34.4): every default parse refuses it too; only the explicit
    // lenient option (text the project wrote itself) keeps both members.
    #expect(throws: JSONParseError.self) { try JSONParser.parse(spliced) }
    let lenient = try JSONParser.parse(bytes: Array(spliced.utf8), rejectingDuplicateKeys: false)
    #expect(lenient["praisePolicy"]?.objectValue?.count == 6)
  }

  @Test("§2.3: the app's checks run first; the [D] rules only after them")
  func appChecksFirst() throws {
    let bytes = try HostileSpec.mutated { root in
      root["prdVersion"] = "v0.0.0"
      HostileSpec.set("FRAME_MOVE_LEFT", at: ["cues", "1", "id"], in: &root)
    }
    #expect(HostileSpec.failure(bytes)?.kind == .prdVersionMismatch)
  }
}
