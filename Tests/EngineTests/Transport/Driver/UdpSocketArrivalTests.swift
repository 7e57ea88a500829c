import Foundation
import Testing
@testable import EngineTransport

/// The kernel's receive timestamp: a datagram read late is dated when it arrived, not when the reader got to it
/// (transport feedback reports arrival times; a busy event thread must not look like a queue on the network).
@Test func aDatagramReadLateIsDatedByItsArrival() throws {
    let a = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
    let b = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
    // Linux turns receive timestamps on for the whole stack from a workqueue (net_enable_timestamp defers it), so
    // on a busy machine the first datagrams after the first timestamping socket may arrive unstamped and are then
    // dated when read. Wait until a datagram read 20 ms late is dated by its arrival (at most 2 s), then measure.
    for _ in 0..<100 {
        _ = a.send([0], to: b.localAddress)
        usleep(20_000)
        while b.receive() != nil {}
        if let warm = b.ageOfLastDatagram(), warm >= .milliseconds(10) { break }
    }
    #expect(a.send([1, 2, 3], to: b.localAddress))
    usleep(120_000)   // the reader is "busy" for 120 ms
    var got: (bytes: [UInt8], from: TransportAddress)?
    for _ in 0..<100 where got == nil { got = b.receive(); if got == nil { usleep(1000) } }
    #expect(got?.bytes == [1, 2, 3])
    let age = try #require(b.ageOfLastDatagram())
    #expect(age >= .milliseconds(100) && age < .milliseconds(900), "\(age)")
}
