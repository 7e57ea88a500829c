import Testing
@testable import ConfTUI

/// The `i` overlay's lines (#28): copy-paste ready for a browser and for a terminal, for every address shown.

@Test func aLoopbackDemoInvitesWithItsURLAndTheJoinCommandAndSaysWhoCanUseThem() {
    let invite = Invite(webSocketURL: "ws://127.0.0.1:41234/", room: "demo")
    #expect(invite.ways == [.init(browser: "http://127.0.0.1:41234/#demo",
                                  terminal: "conftui join ws://127.0.0.1:41234/ --room demo")])
    #expect(invite.note?.contains("only this machine") == true)
    #expect(invite.lines.contains("terminal  conftui join ws://127.0.0.1:41234/ --room demo"))
    #expect(invite.lines.first == "invite others to room 'demo'")
}

@Test func everyReachableAddressGetsItsOwnLinesAndNoLoopbackNote() {
    let invite = Invite(webSocketURL: "ws://127.0.0.1:3000/", room: "standup", reachableHosts: ["192.168.1.20", "10.0.0.5", "127.0.0.1"],
                        command: "/opt/conftui/bin/conftui")
    #expect(invite.ways.map(\.browser) == ["http://192.168.1.20:3000/#standup", "http://10.0.0.5:3000/#standup",
                                           "http://127.0.0.1:3000/#standup"])
    #expect(invite.ways[0].terminal == "/opt/conftui/bin/conftui join ws://192.168.1.20:3000/ --room standup")
    #expect(invite.note == nil)
}

@Test func secureURLsPathsAndIPv6KeepTheirShape() {
    let tls = Invite(webSocketURL: "wss://conf.example.org:8443/rooms", room: "")
    #expect(tls.ways == [.init(browser: "https://conf.example.org:8443/", terminal: "conftui join wss://conf.example.org:8443/rooms")])
    #expect(tls.lines.first == "invite others to room '__default'")
    let v6 = Invite(webSocketURL: "ws://[2001:db8::1]:3000/", room: "r")
    #expect(v6.ways.first?.browser == "http://[2001:db8::1]:3000/#r")
    #expect(v6.ways.first?.terminal == "conftui join 'ws://[2001:db8::1]:3000/' --room r")
    let noPort = Invite(webSocketURL: "ws://example.org", room: "r")
    #expect(noPort.ways.first?.terminal == "conftui join ws://example.org/ --room r")
}

@Test func roomNamesAShellWouldChangeAreQuotedAndTheFragmentIsEncoded() {
    let invite = Invite(webSocketURL: "ws://127.0.0.1:3000/", room: "Ada's room; rm -rf ~")
    #expect(invite.ways.first?.terminal == "conftui join ws://127.0.0.1:3000/ --room 'Ada'\\''s room; rm -rf ~'")
    #expect(invite.ways.first?.browser == "http://127.0.0.1:3000/#Ada%27s%20room%3B%20rm%20-rf%20~")
    let unicode = Invite(webSocketURL: "ws://127.0.0.1:3000/", room: "café")
    #expect(unicode.ways.first?.browser == "http://127.0.0.1:3000/#caf%C3%A9")
    #expect(unicode.ways.first?.terminal == "conftui join ws://127.0.0.1:3000/ --room 'café'")
}

@Test func aURLThatIsNotWebSocketSaysSoInsteadOfInventingAnAddress() {
    let invite = Invite(webSocketURL: "http://127.0.0.1:3000/", room: "r")
    #expect(invite.ways.isEmpty)
    #expect(invite.note?.contains("cannot be shared") == true)
}

@Test func aServerOnEveryInterfaceIsReachableAtEachAddressOfThisMachineNonLoopbackFirst() {
    let hosts = Invite.reachableHosts(listeningOn: "0.0.0.0")
    #expect(hosts.contains("127.0.0.1"))
    #expect(hosts.last == "127.0.0.1", "loopback last: the addresses others can use come first")
    #expect(!hosts.contains("0.0.0.0"))
    #expect(Invite.reachableHosts(listeningOn: "192.0.2.7") == ["192.0.2.7"])
}
