/// `conftui-bench`: the benchmarks behind `make bench`. Each suite prints a table and, where a
/// suite says so, JSON lines under bench-results/. Suites compare against a baseline measured in
/// the same run, because a ratio survives a noisy machine and an absolute time does not.
@main
enum BenchMain {
    static func main() throws {
        let wanted = Set(CommandLine.arguments.dropFirst())
        for suite in allSuites where wanted.isEmpty || wanted.contains(suite.name) {
            print("== \(suite.name): \(suite.summary)")
            try suite.run()
            print("")
        }
    }
}

struct BenchSuite: Sendable {
    let name: String
    let summary: String
    let run: @Sendable () throws -> Void
}

/// Every suite, in the order `make bench` runs them.
let allSuites: [BenchSuite] = [
    rendererSuite,
    mediaSuite,
    rtpSuite,
    churnSuite,
    roomsSuite,
    sctpCoreSuite,
]
