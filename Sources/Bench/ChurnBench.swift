import Engine
import EngineTestSupport
import Foundation

/// Join/leave churn against one `Call` (docs/bounds-and-security.md): peers join and leave one after another (one
/// in ten completes ICE, DTLS and SRTP; the rest join by signaling only, see `CallChurn`), and the process's resident
/// memory is printed as it goes. A long call with churn must return to its baseline.
let churnSuite = BenchSuite(name: "churn", summary: "resident memory over 500 peers joining and leaving one call") {
    let mb = { (b: Int) in String(format: "%7.1f MB", Double(b) / 1_048_576) }
    print("60 warm-up joins/leaves set the baseline; then 500 more, one in ten with a full ICE+DTLS+SRTP handshake")
    print("peers joined/left  RSS")
    let report = try CallChurn.run(warmup: 60, cycles: 500, handshakeEvery: 10, batch: 100) { done, rss in
        print(String(format: "%18d  ", done) + mb(rss))
    }
    print("")
    print("joined  left  handshakes  baseline     peak        final       final/baseline  retained (open, summaries)  seconds")
    print(String(format: "%6d  %4d  %10d  ", report.joined, report.left, report.handshakes)
          + "\(mb(report.baselineRSS))  \(mb(report.peakRSS))  \(mb(report.finalRSS))  "
          + String(format: "%14.3f  %10d, %-15d  %7.1f", report.finalOverBaseline, report.retained.openPeers,
                   report.retained.closedSummaries, report.seconds))
}
