import Foundation
import Recording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The contract matrix's fixtures and its folder slots (see ContractMatrix).
extension ContractMatrix {
  /// The slot's arguments with `{}` as `path`, `{JSONL}` as the fixture JSONL and `{FIX}` as
  /// the fixtures' folder.
  static func substitute(_ args: [String], path: String, jsonl: String, fixtures: String) -> [String] {
    args.map { $0 == "{}" ? path : $0 == "{JSONL}" ? jsonl : $0.replacingOccurrences(of: fix, with: fixtures) }
  }

  /// Makes the small fixtures the table's `{FIX}` paths name (see `ContractMatrix.fix`) in
  /// `dir`: copies of one short recording and its goldens, and a 2-trial study (one run).
  static func makeFixtures(in dir: URL, runs: Locked<Int>) throws {
    let fm = FileManager.default
    func put(_ text: String, _ rel: String) throws { try text.write(to: dir.appendingPathComponent(rel), atomically: false, encoding: .utf8) }
    for sub in ["Recordings", "Golden", "GoldenDiff"] { try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
    for ext in [".jprec", ".scenario.yaml"] { try fm.copyItem(atPath: repo("Recordings/" + name + ext), toPath: dir.appendingPathComponent("Recordings/" + name + ext).path) }
    for ext in [".trace.jsonl", ".a13.jsonl"] {
      try fm.copyItem(atPath: repo("Golden/" + name + ext), toPath: dir.appendingPathComponent("Golden/" + name + ext).path)
    }
    // A trace golden the replay differs from (its last line dropped): minimize's default property.
    let trace = try String(contentsOfFile: repo("Golden/" + name + ".trace.jsonl"), encoding: .utf8)
    try put(trace.split(separator: "\n").dropLast().map { $0 + "\n" }.joined(), "GoldenDiff/" + name + ".trace.jsonl")
    try fm.copyItem(atPath: repo("Golden/" + name + ".a13.jsonl"), toPath: dir.appendingPathComponent("GoldenDiff/" + name + ".a13.jsonl").path)
    try put("sampler: random\nseed: 1\nconstraints: {budget_violations: 99, expectation_failures: 99}\ncues[*].antiJitter.persistFrames: [2..6]\n", "space.yaml")
    try put("{\"format\":\"jpreplay-decisions\",\"version\":1,\"decisions\":[]}\n", "decisions.json")
    try put("# no accepted hazards\n", "hazards.txt")
    try fm.copyItem(atPath: repo("PoseSpec.json"), toPath: dir.appendingPathComponent("PoseSpec.json").path)
    var args = tuneRun(study: "study.sqlite", recordingsDir: "Recordings").map { $0 == fix + "/space.yaml" ? "space.yaml" : $0 }
    args[args.firstIndex(of: "--trials")! + 1] = "2"
    let r = try runCounted(args, cwd: dir, runs: runs)
    guard r.code == 0 else { throw MatrixError("the fixture study: tune run: exit \(r.code): \(r.stderr)") }
  }

  /// Makes the folder path of class `pc` (nil: the baseline's) in `dir`: for an input, a folder
  /// holding copies of `fixture`'s files; for an output, a path where the command makes one.
  /// `args` puts the path into the slot's arguments.
  static func prepareFolder(
    _ slot: Slot, _ pc: PathClass?, output: Bool, fixture: String?, in dir: URL, args: (String) -> [String]
  ) throws -> Setup {
    let fm = FileManager.default
    var setup = Setup(args: [])
    func at(_ rel: String) -> String { rel.hasPrefix("/") ? rel : dir.appendingPathComponent(rel).path }
    func keep(_ path: String, _ text: String) throws {
      try text.write(toFile: path, atomically: false, encoding: .utf8)
      setup.checks.append { (try? String(contentsOfFile: path, encoding: .utf8)) == text ? nil : "\(path) was changed or removed" }
    }
    // An input folder: made, holding the fixture's files. An output folder: not made.
    func fill(_ rel: String) throws { if !output, let fixture { try fillFolder(at(rel), from: fixture) } }
    var p: String
    switch pc {
    case nil:
      p = output ? "made" : "folder"
      try fill(p)
    case .oneCharacter?:
      p = output ? "q" : "b"
      try fill(p)
    case .dash?: p = "-"
    case .name255Bytes?:
      p = String(repeating: "n", count: 255)
      try fill(p)
    case .path4000Bytes?:
      // Room for the files a command writes inside (a temporary's name is about 60 bytes).
      var deep = dir.path
      while deep.utf8.count < 3900 - 201 { deep += "/" + String(repeating: "d", count: 200) }
      try fm.createDirectory(atPath: deep, withIntermediateDirectories: true)
      p = deep + "/" + String(repeating: "f", count: max(1, 3900 - deep.utf8.count - 1))
      try fill(p)
    case .linkToFile?:
      // A link to a folder: followed.
      if output {
        try fm.createDirectory(atPath: at("real"), withIntermediateDirectories: true)
        try keep(at("real/keep.txt"), "keep\n")
      } else {
        try fill("real")
      }
      p = "link"
      let link = at(p)
      try fm.createSymbolicLink(atPath: link, withDestinationPath: at("real"))
      setup.checks.append { kind(link) == S_IFLNK ? nil : "the link \(link) was replaced" }
    case .danglingLink?:
      let nothing = at("nothing")
      p = "dangling"
      try fm.createSymbolicLink(atPath: at(p), withDestinationPath: nothing)
      setup.checks.append { kind(nothing) == 0 ? nil : "the dangling link's target was created" }
    case .directory?:
      // A regular file where a folder belongs.
      p = "file"
      try keep(at(p), "keep\n")
    case .fifo?:
      p = "fifo"
      guard mkfifo(at(p), 0o600) == 0 else { throw MatrixError("mkfifo failed") }
    case .characterDevice?: p = "/dev/null"
    case .readOnlyFolder?:
      try fm.createDirectory(atPath: at("ro"), withIntermediateDirectories: true)
      try keep(at("ro/keep.txt"), "keep\n")
      p = output ? "ro/made" : "ro/folder"
      try fill(p)
      if !output { chmod(at(p), 0o555) }
      chmod(at("ro"), 0o555)
    case .fullDevice?:
      guard fm.fileExists(atPath: "/dev/full") else { return Setup(args: [], skip: true) }
      p = "/dev/full"
    }
    setup.args = args(p)
    return setup
  }

  /// Makes the folder `path` holding copies of `fixture`'s files, by open(2)/write(2)
  /// (FileManager fails on the 4,000-byte paths).
  static func fillFolder(_ path: String, from fixture: String) throws {
    let fm = FileManager.default
    guard mkdir(path, 0o755) == 0 else { throw MatrixError("mkdir \(path.suffix(80)): \(String(cString: strerror(errno)))") }
    for f in try fm.contentsOfDirectory(atPath: fixture) {
      guard let bytes = fm.contents(atPath: fixture + "/" + f) else { throw MatrixError("cannot read \(fixture)/\(f)") }
      let fd = open(path + "/" + f, O_WRONLY | O_CREAT | O_EXCL, 0o644)
      guard fd >= 0 else { throw MatrixError("cannot create \((path + "/" + f).suffix(80)): \(String(cString: strerror(errno)))") }
      defer { close(fd) }
      guard bytes.withUnsafeBytes({ SafeFile.writeAll(fd, $0) }) == nil else { throw MatrixError("cannot write \(f)") }
    }
  }
}
