import Foundation

/// Offers as Chrome 120+ and aiortc 1.x write them (typed from their output format; ids and keys are made up).
enum SdpFixtures {
    static let chromeOffer = """
        v=0
        o=- 4215775240449105457 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS 8d5f0b2e-7b7a-4d3f-9b8a-3f1c2e4d5a6b
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=candidate:3079375389 1 udp 2122260223 192.168.1.23 56143 typ host generation 0 network-id 1 network-cost 10
        a=candidate:2999745851 1 udp 2122194687 1f4712db-ea17-4bcf-a596-105139dfd8bf.local 54321 typ host generation 0 network-id 2
        a=candidate:842163049 1 udp 1686052607 203.0.113.77 56143 typ srflx raddr 192.168.1.23 rport 56143 generation 0 network-id 1 network-cost 10
        a=candidate:1846213549 1 tcp 1518280447 192.168.1.23 9 typ host tcptype active generation 0 network-id 1 network-cost 10
        a=ice-ufrag:EsAw
        a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y
        a=ice-options:trickle
        a=fingerprint:sha-256 D2:FA:0E:C3:22:59:5E:14:95:69:92:3D:13:B4:84:24:2C:C2:A2:C0:3E:FD:34:8E:5E:EA:6F:AF:52:CE:E6:0F
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendrecv
        a=msid:8d5f0b2e-7b7a-4d3f-9b8a-3f1c2e4d5a6b 1e8c6a1b-2f3d-4c5e-8a9b-0c1d2e3f4a5b
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:3473410720 cname:kF0OWkcZP8NQyFfW
        a=ssrc:3473410720 msid:8d5f0b2e-7b7a-4d3f-9b8a-3f1c2e4d5a6b 1e8c6a1b-2f3d-4c5e-8a9b-0c1d2e3f4a5b
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 45 46 98 99 116 117 118
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:EsAw
        a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y
        a=ice-options:trickle
        a=fingerprint:sha-256 D2:FA:0E:C3:22:59:5E:14:95:69:92:3D:13:B4:84:24:2C:C2:A2:C0:3E:FD:34:8E:5E:EA:6F:AF:52:CE:E6:0F
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendrecv
        a=msid:8d5f0b2e-7b7a-4d3f-9b8a-3f1c2e4d5a6b 6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:45 AV1/90000
        a=rtcp-fb:45 goog-remb
        a=rtcp-fb:45 transport-cc
        a=rtcp-fb:45 ccm fir
        a=rtcp-fb:45 nack
        a=rtcp-fb:45 nack pli
        a=fmtp:45 level-idx=5;profile=0;tier=0
        a=rtpmap:46 rtx/90000
        a=fmtp:46 apt=45
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rtpmap:116 red/90000
        a=rtpmap:117 rtx/90000
        a=fmtp:117 apt=116
        a=rtpmap:118 ulpfec/90000
        a=ssrc-group:FID 2188189236 1569436102
        a=ssrc:2188189236 cname:kF0OWkcZP8NQyFfW
        a=ssrc:2188189236 msid:8d5f0b2e-7b7a-4d3f-9b8a-3f1c2e4d5a6b 6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d
        a=ssrc:1569436102 cname:kF0OWkcZP8NQyFfW
        a=ssrc:1569436102 msid:8d5f0b2e-7b7a-4d3f-9b8a-3f1c2e4d5a6b 6a7b8c9d-0e1f-4a2b-9c3d-4e5f6a7b8c9d

        """.replacingOccurrences(of: "\n", with: "\r\n")

    /// aiortc 1.x: opus at PT 96 (so the answer must not use 111), VP8 at 97, all candidates inline plus
    /// a=end-of-candidates (no trickle), an application section we do not accept.
    static let aiortcOffer = """
        v=0
        o=- 3912345678 3912345678 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1 2
        a=msid-semantic:WMS *
        m=audio 40251 UDP/TLS/RTP/SAVPF 96 0 8
        c=IN IP4 10.0.2.15
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:5e9b1c3a-0d2e-4f6a-8b7c-9d0e1f2a3b4c 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:1617466066 cname:3f2c6b8e-7a1d-4e5f-9b0c-1d2e3f4a5b6c
        a=rtpmap:96 opus/48000/2
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:e5b5f2a4c8d1e0b9a7f6c5d4e3b2a1f0 1 udp 2130706431 10.0.2.15 40251 typ host
        a=candidate:0f1e2d3c4b5a69788796a5b4c3d2e1f0 1 udp 1694498815 198.51.100.20 40251 typ srflx raddr 10.0.2.15 rport 40251
        a=end-of-candidates
        a=ice-ufrag:Xe7Q
        a=ice-pwd:5ikqYbnq2JQGDyNPBUfbPO
        a=fingerprint:sha-256 6B:8B:5D:EA:59:04:20:23:29:C8:87:1C:CC:87:32:BE:DD:8C:66:A5:8E:50:55:EA:8C:D3:B6:5C:09:5E:A6:BC
        a=setup:actpass
        m=video 40251 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
        c=IN IP4 10.0.2.15
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:5e9b1c3a-0d2e-4f6a-8b7c-9d0e1f2a3b4c 7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 2386063011 1446036735
        a=ssrc:2386063011 cname:3f2c6b8e-7a1d-4e5f-9b0c-1d2e3f4a5b6c
        a=ssrc:1446036735 cname:3f2c6b8e-7a1d-4e5f-9b0c-1d2e3f4a5b6c
        a=rtpmap:97 VP8/90000
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 goog-remb
        a=rtpmap:98 rtx/90000
        a=fmtp:98 apt=97
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=rtpmap:101 H264/90000
        a=rtcp-fb:101 nack
        a=rtcp-fb:101 nack pli
        a=rtcp-fb:101 goog-remb
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:102 rtx/90000
        a=fmtp:102 apt=101
        a=candidate:e5b5f2a4c8d1e0b9a7f6c5d4e3b2a1f0 1 udp 2130706431 10.0.2.15 40251 typ host
        a=candidate:0f1e2d3c4b5a69788796a5b4c3d2e1f0 1 udp 1694498815 198.51.100.20 40251 typ srflx raddr 10.0.2.15 rport 40251
        a=end-of-candidates
        a=ice-ufrag:Xe7Q
        a=ice-pwd:5ikqYbnq2JQGDyNPBUfbPO
        a=fingerprint:sha-256 6B:8B:5D:EA:59:04:20:23:29:C8:87:1C:CC:87:32:BE:DD:8C:66:A5:8E:50:55:EA:8C:D3:B6:5C:09:5E:A6:BC
        a=setup:actpass
        m=application 40251 DTLS/SCTP 5000
        c=IN IP4 10.0.2.15
        a=mid:2
        a=sctpmap:5000 webrtc-datachannel 65535
        a=max-message-size:65536
        a=candidate:e5b5f2a4c8d1e0b9a7f6c5d4e3b2a1f0 1 udp 2130706431 10.0.2.15 40251 typ host
        a=end-of-candidates
        a=ice-ufrag:Xe7Q
        a=ice-pwd:5ikqYbnq2JQGDyNPBUfbPO
        a=fingerprint:sha-256 6B:8B:5D:EA:59:04:20:23:29:C8:87:1C:CC:87:32:BE:DD:8C:66:A5:8E:50:55:EA:8C:D3:B6:5C:09:5E:A6:BC
        a=setup:actpass

        """.replacingOccurrences(of: "\n", with: "\r\n")
}
