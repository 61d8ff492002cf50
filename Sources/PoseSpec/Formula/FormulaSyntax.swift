import CanonicalJSON

/// The untyped syntax of PoseSpec formulas and threshold `error` expressions (ENGINE §2.9).
///
/// Grammar (whitespace is free; `#` starts a comment that runs to the end of the text):
///
///     formula    := statement (";" statement)* [";"]
///     statement  := IDENT "=" expr | expr
///     expr       := term (("+" | "-") term)*
///     term       := unary (("*" | "/") unary)*
///     unary      := ("-" | "+") unary | postfix
///     postfix    := primary ("." IDENT)*
///     primary    := NUMBER | IDENT | IDENT "(" [expr ("," expr)*] ")" | "(" expr ")"
///
/// Qualified inputs (`body.leftShoulder`, `face.faceBBox`, `target.centerXOffset`) parse as
/// field accesses on a name and are resolved by the compiler. Literals such as `1/3` are
/// ordinary divisions, folded at compile time.
public indirect enum FormulaSyntax: Equatable, Sendable {
  case number(Double, at: Int)
  case name(String, at: Int)
  case call(String, [FormulaSyntax], at: Int)
  case field(FormulaSyntax, String, at: Int)
  case negate(FormulaSyntax, at: Int)
  case binary(FormulaOperator, FormulaSyntax, FormulaSyntax, at: Int)

  /// 1-based column of the token that starts this node (for error messages).
  public var column: Int {
    switch self {
    case .number(_, let at), .name(_, let at), .call(_, _, let at), .field(_, _, let at), .negate(_, let at),
      .binary(_, _, _, let at):
      at
    }
  }
}

public enum FormulaOperator: String, Equatable, Sendable {
  case add = "+"
  case subtract = "-"
  case multiply = "*"
  case divide = "/"
}

/// One statement of a formula: `name = expression`, or a bare expression (name nil).
public struct FormulaStatement: Equatable, Sendable {
  public var name: String?
  public var expression: FormulaSyntax
  /// 1-based column of the statement's first token.
  public var column: Int
}

/// A syntax error: what was expected, at which 1-based column of which text.
public struct FormulaSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
  public var column: Int
  public var message: String
  public var description: String { "column \(column): \(message)" }
}

/// Tokenizer and recursive-descent parser for `FormulaSyntax`.
public struct FormulaParser {
  enum Token: Equatable {
    case number(Double)
    case ident(String)
    case symbol(Character)
    case end
  }

  let tokens: [(token: Token, column: Int)]
  var position = 0

  /// Parses a whole formula (statements separated by `;`). An empty formula has no statements.
  public static func parseFormula(_ text: String) throws(FormulaSyntaxError) -> [FormulaStatement] {
    var parser = FormulaParser(tokens: try tokenize(text))
    var statements: [FormulaStatement] = []
    while parser.peek != .end {
      if parser.peek == .symbol(";") {
        parser.position += 1
        continue
      }
      statements.append(try parser.statement())
      switch parser.peek {
      case .end, .symbol(";"): break
      default: throw parser.unexpected("';' or the end of the formula")
      }
    }
    return statements
  }

  /// Parses one expression that must span the whole text (a threshold `error`).
  public static func parseExpression(_ text: String) throws(FormulaSyntaxError) -> FormulaSyntax {
    var parser = FormulaParser(tokens: try tokenize(text))
    guard parser.peek != .end else { throw FormulaSyntaxError(column: 1, message: "empty expression") }
    let e = try parser.expression(nesting: 1).syntax
    guard parser.peek == .end else { throw parser.unexpected("an operator or the end of the expression") }
    return e
  }

  // MARK: Lexer

  static func tokenize(_ text: String) throws(FormulaSyntaxError) -> [(token: Token, column: Int)] {
    let bytesMax = PoseSpecLimits.formulaBytesMax
    guard text.utf8.count <= bytesMax else {
      throw FormulaSyntaxError(
        column: 1, message: "the text is \(text.utf8.count) bytes, more than formulaBytesMax = \(bytesMax)")
    }
    let chars = Array(text.unicodeScalars)
    var out: [(token: Token, column: Int)] = []
    var i = 0
    func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
    func isIdentStart(_ c: Unicode.Scalar) -> Bool { c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
    while i < chars.count {
      let c = chars[i]
      let column = i + 1
      if c == " " || c == "\t" || c == "\n" || c == "\r" {
        i += 1
      } else if c == "#" {
        break  // comment to the end
      } else if isDigit(c) || (c == "." && i + 1 < chars.count && isDigit(chars[i + 1])) {
        var j = i
        while j < chars.count, isDigit(chars[j]) || chars[j] == "." { j += 1 }
        if j < chars.count, chars[j] == "e" || chars[j] == "E" {
          var k = j + 1
          if k < chars.count, chars[k] == "+" || chars[k] == "-" { k += 1 }
          if k < chars.count, isDigit(chars[k]) {
            while k < chars.count, isDigit(chars[k]) { k += 1 }
            j = k
          }
        }
        let literal = String(String.UnicodeScalarView(chars[i..<j]))
        guard let value = Double(literal), value.isFinite else {
          throw FormulaSyntaxError(column: column, message: "malformed number '\(literal)'")
        }
        out.append((.number(value), column))
        i = j
      } else if isIdentStart(c) {
        var j = i
        while j < chars.count, isIdentStart(chars[j]) || isDigit(chars[j]) { j += 1 }
        out.append((.ident(String(String.UnicodeScalarView(chars[i..<j]))), column))
        i = j
      } else if "+-*/(),.;=".unicodeScalars.contains(c) {
        out.append((.symbol(Character(c)), column))
        i += 1
      } else {
        throw FormulaSyntaxError(column: column, message: "unexpected character '\(Character(c))'")
      }
    }
    out.append((.end, chars.count + 1))
    return out
  }

  // MARK: Parser

  var peek: Token { tokens[position].token }
  var column: Int { tokens[position].column }

  func unexpected(_ expected: String) -> FormulaSyntaxError {
    let found: String =
      switch peek {
      case .number(let d): "number \(JSONWriter.shortest(d))"
      case .ident(let s): "'\(s)'"
      case .symbol(let c): "'\(c)'"
      case .end: "the end of the text"
      }
    return FormulaSyntaxError(column: column, message: "expected \(expected), found \(found)")
  }

  /// A parsed sub-expression and the height of its tree (a leaf is 1).
  struct Parsed {
    var syntax: FormulaSyntax
    var height: Int
  }

  /// Refuses a tree or a recursion deeper than `PoseSpecLimits.formulaDepthMax` at `column`,
  /// before the next level is built.
  func checkDepth(_ depth: Int, at column: Int) throws(FormulaSyntaxError) {
    let max = PoseSpecLimits.formulaDepthMax
    guard depth <= max else {
      throw FormulaSyntaxError(
        column: column,
        message: "the expression nests deeper than formulaDepthMax = \(max) levels (operators, calls, signs "
          + "and parentheses count); split it into named steps 'a = …; b = …'")
    }
  }

  mutating func statement() throws(FormulaSyntaxError) -> FormulaStatement {
    let start = column
    if case .ident(let name) = peek, position + 1 < tokens.count, tokens[position + 1].token == .symbol("=") {
      position += 2
      guard peek != .end, peek != .symbol(";") else { throw unexpected("an expression after '\(name) ='") }
      return FormulaStatement(name: name, expression: try expression(nesting: 1).syntax, column: start)
    }
    return FormulaStatement(name: nil, expression: try expression(nesting: 1).syntax, column: start)
  }

  /// `nesting` counts the parser's own recursion (parentheses, calls, signs); the tree's
  /// height is checked separately, since operator chains grow it without recursion.
  mutating func expression(nesting: Int) throws(FormulaSyntaxError) -> Parsed {
    try checkDepth(nesting, at: column)
    var lhs = try term(nesting: nesting)
    while case .symbol(let c) = peek, c == "+" || c == "-" {
      let at = column
      position += 1
      let rhs = try term(nesting: nesting)
      let height = Swift.max(lhs.height, rhs.height) + 1
      try checkDepth(height, at: at)
      lhs = Parsed(syntax: .binary(c == "+" ? .add : .subtract, lhs.syntax, rhs.syntax, at: at), height: height)
    }
    return lhs
  }

  mutating func term(nesting: Int) throws(FormulaSyntaxError) -> Parsed {
    var lhs = try unary(nesting: nesting)
    while case .symbol(let c) = peek, c == "*" || c == "/" {
      let at = column
      position += 1
      let rhs = try unary(nesting: nesting)
      let height = Swift.max(lhs.height, rhs.height) + 1
      try checkDepth(height, at: at)
      lhs = Parsed(syntax: .binary(c == "*" ? .multiply : .divide, lhs.syntax, rhs.syntax, at: at), height: height)
    }
    return lhs
  }

  mutating func unary(nesting: Int) throws(FormulaSyntaxError) -> Parsed {
    if case .symbol(let c) = peek, c == "-" || c == "+" {
      let at = column
      try checkDepth(nesting + 1, at: at)
      position += 1
      let operand = try unary(nesting: nesting + 1)
      guard c == "-" else { return operand }
      try checkDepth(operand.height + 1, at: at)
      return Parsed(syntax: .negate(operand.syntax, at: at), height: operand.height + 1)
    }
    return try postfix(nesting: nesting)
  }

  mutating func postfix(nesting: Int) throws(FormulaSyntaxError) -> Parsed {
    var base = try primary(nesting: nesting)
    while peek == .symbol(".") {
      position += 1
      guard case .ident(let field) = peek else { throw unexpected("a field name after '.'") }
      try checkDepth(base.height + 1, at: column)
      base = Parsed(syntax: .field(base.syntax, field, at: column), height: base.height + 1)
      position += 1
    }
    return base
  }

  mutating func primary(nesting: Int) throws(FormulaSyntaxError) -> Parsed {
    let at = column
    switch peek {
    case .number(let d):
      position += 1
      return Parsed(syntax: .number(d, at: at), height: 1)
    case .ident(let name):
      position += 1
      guard peek == .symbol("(") else { return Parsed(syntax: .name(name, at: at), height: 1) }
      position += 1
      var args: [FormulaSyntax] = []
      var height = 1
      if peek != .symbol(")") {
        while true {
          let arg = try expression(nesting: nesting + 1)
          args.append(arg.syntax)
          height = Swift.max(height, arg.height + 1)
          guard peek == .symbol(",") else { break }
          position += 1
        }
      }
      guard peek == .symbol(")") else { throw unexpected("',' or ')' in the arguments of \(name)(…)") }
      position += 1
      return Parsed(syntax: .call(name, args, at: at), height: height)
    case .symbol("("):
      position += 1
      let inner = try expression(nesting: nesting + 1)
      guard peek == .symbol(")") else { throw unexpected("')'") }
      position += 1
      return inner
    default:
      throw unexpected("a number, a name or '('")
    }
  }
}
