import Foundation
import Testing
@testable import EngineTransport

/// The kernel's receive timestamp: a datagram read late is dated when it arrived, not when the reader got to it
/// (transport feedback reports arrival times; a busy event thread must not look like a queue on the network).
@Test func aDatagramReadLateIsDatedByItsArrival() throws {
    let a = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
    let b = try UdpSocket(bind: TransportAddress("127.0.0.1:0")!)
    #expect(a.send([1, 2, 3], to: b.localAddress))
    usleep(120_000)   // the reader is "busy" for 120 ms
    var got: (bytes: [UInt8], from: TransportAddress)?
    for _ in 0..<100 where got == nil { got = b.receive(); if got == nil { usleep(1000) } }
    #expect(got?.bytes == [1, 2, 3])
    let age = try #require(b.ageOfLastDatagram())
    #expect(age >= .milliseconds(100) && age < .milliseconds(900), "\(age)")
}
