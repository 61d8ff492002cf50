/// The text of a cue's `metric.formula`, split into its assignments (ENGINE §2.9).
///
/// This is a textual view only: formulas are not compiled here. A later expression compiler
/// attaches its compiled form beside this one (see `PoseSpecCue.formula`), and the engine's
/// metric registry matches these texts until then.
///
/// Statements are separated by `;`; everything after `#` is a comment; a statement is an
/// assignment when it has a single `=` that is not part of `==`, `<=`, `>=` or `!=`.
public struct CueFormula: Equatable, Sendable {
  public struct Assignment: Equatable, Sendable {
    public var name: String
    public var expression: String
  }

  /// The formula as written in the spec.
  public var text: String
  /// The assignments in order, names and expressions trimmed.
  public var assignments: [Assignment]

  public init(_ text: String) {
    self.text = text
    var code = Substring(text)
    if let hash = code.firstIndex(of: "#") { code = code[..<hash] }
    assignments = code.split(separator: ";").compactMap(Self.assignment)
  }

  /// The expression assigned to `error`, if the formula has one (`error = …`).
  public var errorExpression: String? { assignments.last(where: { $0.name == "error" })?.expression }

  /// The name of the last variable the formula assigns (the "V" error source of §3.2).
  public var lastAssignedName: String? { assignments.last?.name }

  /// The expression assigned to `name`, if any.
  public func expression(of name: String) -> String? {
    assignments.last(where: { $0.name == name })?.expression
  }

  static func assignment(_ statement: Substring) -> Assignment? {
    let chars = Array(statement)
    for i in chars.indices where chars[i] == "=" {
      let before: Character? = i > 0 ? chars[i - 1] : nil
      let after: Character? = i + 1 < chars.count ? chars[i + 1] : nil
      if after == "=" || before == "=" || before == "<" || before == ">" || before == "!" { continue }
      let name = String(chars[..<i]).trimmingSpaces
      let expr = String(chars[(i + 1)...]).trimmingSpaces
      guard Self.isIdentifier(name), !expr.isEmpty else { return nil }
      return Assignment(name: name, expression: expr)
    }
    return nil
  }

  /// Whether `s` is a plain identifier (letters, digits, `_`, not starting with a digit).
  public static func isIdentifier(_ s: String) -> Bool {
    guard let first = s.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
    return s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
  }
}

/// Where a cue's noRef error expression came from (ENGINE §2.8 "src" column, §3.2).
public enum ErrorSource: String, Sendable, Equatable {
  /// E: explicit `trigger.noRef.error`.
  case explicit = "E"
  /// F: `error = …` inside the formula.
  case formula = "F"
  /// O: the single `metric.outputs` name.
  case outputs = "O"
  /// V: the last variable the formula assigns.
  case lastVariable = "V"
}

extension String {
  var trimmingSpaces: String {
    var s = Substring(self)
    while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeFirst() }
    while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeLast() }
    return String(s)
  }
}
