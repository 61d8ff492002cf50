import CanonicalJSON

/// The bounds a PoseSpec (a file, or a spec inlined in a recording) must stay within.
///
/// Every size, count and depth the loader and the formula compiler read from a spec has one
/// of these named bounds, checked before the recursion or allocation it guards. The depths
/// are small enough for the recursive parser, compiler, evaluator and `deinit` of the trees
/// to fit a 512 KiB thread stack in a debug build (tested), so whether a spec loads never
/// depends on the thread. The reference spec (122 KB, 50 cues, formulas at most 10 levels
/// deep, 37 nodes per cue and 464 in all after alias expansion) is far inside all of them.
public enum PoseSpecLimits {
  /// Bytes of one PoseSpec document (the reference is 122 KB).
  public static let specBytesMax = 4 << 20
  /// JSON nesting (objects and arrays) of any document `JSONParser` reads (the reference: 7).
  public static let jsonDepthMax = JSONParser.depthMax
  /// Entries of `cues` (the reference: 50).
  public static let cuesMax = 1_024
  /// UTF-8 bytes of one formula, threshold `error` expression or binding alias text.
  public static let formulaBytesMax = 16 << 10
  /// Nesting of one expression: the height of its syntax tree (operators, calls, unary
  /// signs, parentheses), and of the compiled tree once aliases and other cues' metrics are
  /// expanded into it (the reference: at most 12). A debug build's compiler frames take
  /// 4–14 KiB each (18 KiB per alias hop), which is what keeps this small: the costliest
  /// path at these bounds (`aliasChainMax` hops under nested calls) needs about 380 KiB
  /// (measured: it fits a 448 KiB stack, not a 384 KiB one).
  public static let formulaDepthMax = 24
  /// Names expanded inside one another (alias → alias → metric of another cue …; the
  /// reference: at most 3).
  public static let aliasChainMax = 8
  /// Nodes of one cue's compiled program (formula and both threshold errors, every alias
  /// expanded where it is used), counted while expanding so that an alias defined as
  /// `z_i = z_(i-1) + z_(i-1)` is refused before its 2^i nodes exist (the reference: 37).
  public static let formulaNodesMax = 4_096
  /// Nodes of all cues' compiled programs together (bounds the work of one load and of
  /// every evaluation; the reference: 464).
  public static let specNodesMax = 1 << 16
  /// `metric.updateHz` range: positive, at least once in 1000 s, at most 1000 per second.
  public static let updateHzMin = 0.001
  public static let updateHzMax = 1_000.0
  /// Durations in milliseconds (`antiJitter.*Ms`, `praisePolicy.cooldownMs`,
  /// `freezeAfterExit.timeoutMs`): 0 … one day, so that `now + ms` never overflows.
  public static let durationMsMax = 86_400_000
  /// `antiJitter.persistFrames`: 0 … 1000 frames (the reference: 3…8).
  public static let persistFramesMax = 1_000
}
