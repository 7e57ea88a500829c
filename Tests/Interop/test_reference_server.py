"""The reference SkyRTC server keeps the original's wire behaviour (docs/skyrtc-protocol.md sections 3 and 4).

These pin the semantics other tests rely on when they say "a server that behaves like the original": join
ordering, the default room, JavaScript room keys, forwarding with `socketId` rewritten and unknown keys dropped,
`id` dropped unless patched, no room check on forwarding, `_remove_peer` on close, the rejoin ghost, and that
bad input is survived (or, on request, fatal like the original).
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import ClientConnection, connect

from browser_page import load_browser_page

UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


async def receive(ws: ClientConnection, timeout: float = 2.0) -> dict:
    raw = await asyncio.wait_for(ws.recv(), timeout)
    assert isinstance(raw, str), "the server always replies with text frames"
    return json.loads(raw)


async def nothing_arrives(ws: ClientConnection, within: float = 0.3) -> bool:
    try:
        await asyncio.wait_for(ws.recv(), within)
    except asyncio.TimeoutError:
        return True
    return False


async def send(ws: ClientConnection, event_name: str, data, binary: bool = False) -> None:
    text = json.dumps({"eventName": event_name, "data": data})
    await ws.send(text.encode() if binary else text)


async def join(ws: ClientConnection, data: dict) -> dict:
    """Sends `__join` with `data` and returns the `_peers` data."""
    await send(ws, "__join", data)
    reply = await receive(ws)
    assert reply["eventName"] == "_peers", reply
    return reply["data"]


def run(coroutine) -> None:
    asyncio.run(asyncio.wait_for(coroutine, 10))


def test_join_sends_new_peer_to_members_then_peers_to_the_joiner(reference_server_with):
    server = reference_server_with()

    async def scenario():
        async with connect(server.ws_url + "any/path?x=1") as a, connect(server.ws_url) as b, \
                connect(server.ws_url) as c:
            a_peers = await join(a, {"room": "r1"})
            assert a_peers["connections"] == [] and UUID_V4.match(a_peers["you"])
            await send(b, "__join", {"room": "r1"}, binary=True)   # binary frames too (the iOS client's)
            b_peers = await receive(b)
            assert b_peers == {"eventName": "_peers", "data": {"connections": [a_peers["you"]],
                                                               "you": b_peers["data"]["you"]}}
            b_id = b_peers["data"]["you"]
            assert await receive(a) == {"eventName": "_new_peer", "data": {"socketId": b_id}}
            c_peers = await join(c, {"room": "r1"})
            assert c_peers["connections"] == [a_peers["you"], b_id]   # join order, self excluded
            assert (await receive(a))["data"] == {"socketId": c_peers["you"]}
            assert (await receive(b))["data"] == {"socketId": c_peers["you"]}

    run(scenario())


def test_falsy_rooms_are_the_default_room_and_room_keys_are_javascript_strings(reference_server_with):
    server = reference_server_with()

    async def scenario():
        async with connect(server.ws_url) as a, connect(server.ws_url) as b, connect(server.ws_url) as c, \
                connect(server.ws_url) as d, connect(server.ws_url) as e:
            a_id = (await join(a, {"room": ""}))["you"]
            assert (await join(b, {}))["connections"] == [a_id]              # missing room
            assert len((await join(c, {"room": 0}))["connections"]) == 2     # 0 is falsy too
            d_id = (await join(d, {"room": 100}))["you"]
            assert (await join(e, {"room": "100"}))["connections"] == [d_id]  # 100 and "100": one room

    run(scenario())


def test_forwarding_rewrites_socket_id_and_keeps_only_the_known_keys(reference_server_with):
    server = reference_server_with()

    async def scenario():
        async with connect(server.ws_url) as a, connect(server.ws_url) as b, connect(server.ws_url) as x:
            a_id = (await join(a, {"room": "r"}))["you"]
            b_id = (await join(b, {"room": "r"}))["you"]
            await receive(a)  # _new_peer
            offer = {"type": "offer", "sdp": "v=0\r\n"}
            await send(b, "__offer", {"socketId": a_id, "sdp": offer, "extra": 1})
            raw = await asyncio.wait_for(a.recv(), 2)
            assert raw == json.dumps({"eventName": "_offer", "data": {"sdp": offer, "socketId": b_id}},
                                     separators=(",", ":"))   # key order sdp, socketId like JSON.stringify
            await send(a, "__answer", {"socketId": b_id, "sdp": {"type": "answer", "sdp": "v=0"}})
            assert await receive(b) == {"eventName": "_answer",
                                        "data": {"sdp": {"type": "answer", "sdp": "v=0"}, "socketId": a_id}}
            await send(b, "__ice_candidate", {"socketId": a_id, "id": "0", "label": 0, "candidate": "candidate:1"})
            assert await receive(a) == {"eventName": "_ice_candidate",
                                        "data": {"label": 0, "candidate": "candidate:1", "socketId": b_id}}
            # No room check: a socket that never joined can signal anyone; unknown targets vanish silently.
            await send(x, "__offer", {"socketId": a_id, "sdp": offer})
            assert (await receive(a))["eventName"] == "_offer"
            await send(a, "__offer", {"socketId": "no-such-id", "sdp": offer})
            assert await nothing_arrives(a) and await nothing_arrives(b)

    run(scenario())


def test_patched_server_forwards_the_candidate_id_first(reference_server_with):
    server = reference_server_with("--patched")

    async def scenario():
        async with connect(server.ws_url) as a, connect(server.ws_url) as b:
            a_id = (await join(a, {"room": "r"}))["you"]
            b_id = (await join(b, {"room": "r"}))["you"]
            await receive(a)
            await send(b, "__ice_candidate", {"candidate": "candidate:1", "label": 1, "id": "1", "socketId": a_id})
            raw = await asyncio.wait_for(a.recv(), 2)
            assert raw == json.dumps({"eventName": "_ice_candidate", "data": {
                "id": "1", "label": 1, "candidate": "candidate:1", "socketId": b_id}}, separators=(",", ":"))

    run(scenario())


def test_close_sends_remove_peer_and_a_rejoin_leaves_a_ghost(reference_server_with):
    server = reference_server_with()

    async def scenario():
        async with connect(server.ws_url) as a, connect(server.ws_url) as c:
            async with connect(server.ws_url) as b:
                a_id = (await join(a, {"room": "r"}))["you"]
                b_id = (await join(b, {"room": "r"}))["you"]
                await receive(a)
                # A second __join on the same socket is not special-cased by the original: b is stored twice.
                assert (await join(b, {"room": "r"}))["connections"] == [a_id]
                assert (await receive(a))["data"] == {"socketId": b_id}   # a duplicate _new_peer
            assert await receive(a) == {"eventName": "_remove_peer", "data": {"socketId": b_id}}
            # One entry of b stays behind: a later joiner sees the dead id.
            assert (await join(c, {"room": "r"}))["connections"] == [a_id, b_id]

    run(scenario())


def test_bad_input_is_survived_unless_asked_to_die_like_the_original(reference_server_with):
    server = reference_server_with()
    strict = reference_server_with("--die-on-bad-input")

    async def scenario():
        async with connect(server.ws_url) as a:
            for bad in ("not json", "null", json.dumps({"eventName": "__join"}), "[1,2]",
                        json.dumps({"eventName": "custom", "data": 1})):
                await a.send(bad)
            assert (await join(a, {"room": "r"}))["connections"] == []   # still serving
        async with connect(strict.ws_url) as b:
            await b.send("not json")
        strict.process.wait(5)

    run(scenario())
    assert server.process.poll() is None
    assert strict.process.returncode == 1


def test_get_slash_serves_the_page_and_other_paths_are_404(reference_server_with):
    server = reference_server_with()
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # loopback only, whatever the env says
    with direct.open(server.http_url, timeout=5) as response:
        assert response.status == 200
        assert response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert response.read().decode() == load_browser_page()
    with pytest.raises(urllib.error.HTTPError) as missing:
        direct.open(server.http_url + "favicon.ico", timeout=5)
    assert missing.value.code == 404
    missing.value.close()
