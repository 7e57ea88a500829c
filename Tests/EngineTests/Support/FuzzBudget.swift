#if canImport(Glibc)
import Glibc
#endif

/// How many inputs a seeded fuzz test feeds its parser: `default` in the ordinary suite (kept fast),
/// `CONFTUI_FUZZ_ITERATIONS` when set (`make fuzz` sets 100,000).
func fuzzIterations(default fallback: Int) -> Int {
    guard let raw = getenv("CONFTUI_FUZZ_ITERATIONS"), let n = Int(String(cString: raw)), n > 0 else { return fallback }
    return max(n, fallback)
}
