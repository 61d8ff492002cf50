import Foundation

#if canImport(Testing)
  import Testing
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reports a failed assertion to whichever test framework is running: Swift Testing's
/// `Issue.record` inside a `@Test`, else XCTest's `XCTFail` found at run time by its symbol
/// (the way xctest-dynamic-overlay does it), else a line on standard error.
enum IssueReporter {
  /// The mangled name of `XCTest.XCTFail(_:file:line:)`.
  static let xctFailSymbol = "$s6XCTest7XCTFail_4file4lineySS_s12StaticStringVSutF"

  typealias XCTFailFunction = @convention(thin) (String, StaticString, UInt) -> Void

  /// `XCTFail` when XCTest is loaded in the process, nil otherwise.
  static let xctFail: XCTFailFunction? = {
    guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, xctFailSymbol) else {
      return nil
    }
    return unsafeBitCast(symbol, to: XCTFailFunction.self)
  }()

  /// Whether a Swift Testing test is running on this task.
  static var inSwiftTesting: Bool {
    #if canImport(Testing)
      return Test.current != nil
    #else
      return false
    #endif
  }

  static func fail(
    _ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
  ) {
    #if canImport(Testing)
      if Test.current != nil {
        Issue.record(
          Comment(rawValue: message),
          sourceLocation: SourceLocation(
            fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
        return
      }
    #endif
    if let xctFail {
      xctFail(message, filePath, line)
      return
    }
    // The throwing write: a failed write to stderr is dropped, never a trap.
    try? FileHandle.standardError.write(contentsOf: Data("\(filePath):\(line): error: \(message)\n".utf8))
  }
}
