"use strict";
/*
 * conftui browser client: one peer of a SkyRTC full mesh.
 *
 * Signaling (SkyRTC, as docs/skyrtc-protocol.md §8 describes): the WebSocket is the page's own host and port
 * at path "/", the room is the URL fragment (http://host:3000/#100; none means the server's default room). The
 * newcomer offers to every id in `_peers.connections`; a member that gets `_new_peer` only prepares a connection and
 * answers the offer that follows. Candidates travel as {label: sdpMLineIndex, id: sdpMid, candidate}.
 *
 * Query options: ?stun=host:port (repeatable) adds STUN servers; by default there are none, so calls work
 * offline between peers that can reach each other directly. ?turn=URI (repeatable, URL-encoded, e.g.
 * turn%3A203.0.113.5%3A3478%3Ftransport%3Dtcp) with ?turn-user=U&turn-password=P adds TURN servers, the same
 * ones `conftui join --turn` takes; ?relay-only=1 makes the page use relayed candidates only (iceTransportPolicy
 * "relay"), to try a TURN server out. ?size=640x480 asks the camera for that picture size (default 320x240, the
 * size `conftui join` sends unless its --size says otherwise; at most 1280x720). ?name=Ada is the display name others see: it is
 * sent in `__join` as {room, name} (conftui's extension; the original server drops it), and remote names
 * arrive in `_peers.names` ({<socketId>: name}) and `_new_peer.name`. A peer without a name is shown by the
 * first 8 characters of its socketId, which is all there is against the original server.
 * Mute and video state (conftui's extension): the page sends `__media_state` {audioMuted, videoOn} after joining
 * and on each toggle, and shows what others announce (`_media_state`, `_peers.media`) on their tiles.
 *
 * Test hook:
 *   window.conftui.state() -> Promise of {you (null until `_peers`), room (the fragment, "" = default),
 *       name (our display name from ?name=, null if none),
 *       media: "camera"|"synthetic" (null until local media is ready), mediaDescription,
 *       signaling: "connecting"|"joined"|"left"|"disconnected",
 *       peers: {<socketId>: {name (its display name, null if none), label (its name or short id), media ({audioMuted, videoOn} as it announced them, null before), role, connectionState, iceConnectionState, signalingState, framesDecoded,
 *                            frameWidth, frameHeight, packetsReceived, audioPacketsReceived,
 *                            videoPacketsReceived, audioLevel, totalAudioEnergy, bytesReceived,
 *                            selectedPair, selectedPairTypes, freezeCount, bytesSent (outbound-rtp, summed),
 *                            availableOutgoingBitrate (the selected pair's: Chromium's send-side estimate)}}}
 *     (figures summed over the peer's inbound-rtp stats; selectedPair is "local -> remote" address:port,
 *     selectedPairTypes their ICE candidate types, "host/srflx" and the like)
 *   window.conftui.log -> the most recent log lines (each is also console.log'ged with a "[conftui]" prefix).
 */

const LOG_LIMIT = 400;
const NAME_LIMIT = 64;   // bytes of UTF-8, the server's cap (SkyRTCDisplayName.maxBytes)
const params = new URLSearchParams(location.search);
const ownName = displayName(params.get("name"));
const rtcConfiguration = {
  iceServers: params.getAll("stun").filter(Boolean).map(url => ({ urls: url.startsWith("stun:") ? url : "stun:" + url }))
    .concat(params.getAll("turn").filter(Boolean).map(url => ({
      urls: /^turns?:/.test(url) ? url : "turn:" + url,
      username: params.get("turn-user") || "",
      credential: params.get("turn-password") || "",
    }))),
  iceTransportPolicy: params.get("relay-only") === "1" ? "relay" : "all",
};

const ui = {
  grid: document.getElementById("grid"),
  status: document.getElementById("status"),
  error: document.getElementById("error"),
  notice: document.getElementById("notice"),
  mute: document.getElementById("mute"),
  video: document.getElementById("video"),
  leave: document.getElementById("leave"),
  rejoin: document.getElementById("rejoin"),
};

const conftui = { log: [], state: snapshot };
window.conftui = conftui;

/** The current join: one WebSocket, the local media and one RTCPeerConnection per remote peer. */
let session = null;

function log(...parts) {
  const text = parts.map(part => {
    if (typeof part === "string") return part;
    if (part instanceof Error || part instanceof DOMException) return part.name + ": " + part.message;
    return JSON.stringify(part);
  }).join(" ");
  const line = new Date().toISOString().slice(11, 23) + " " + text;
  conftui.log.push(line);
  if (conftui.log.length > LOG_LIMIT) conftui.log.splice(0, conftui.log.length - LOG_LIMIT);
  console.log("[conftui] " + line);
}

const short = id => String(id).slice(0, 8);

/**
 * A display name as the server cleans it (SkyRTCDisplayName): no C0/C1/DEL controls, no bidi or invisible
 * format characters, trimmed, at most NAME_LIMIT long; null when nothing is left or it is not a string.
 * Applied to our own name and to names from the server (the original server sends none; another might
 * send anything).
 */
function displayName(value) {
  if (typeof value !== "string") return null;
  const stripped = value.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g, "");
  // Cut between characters (grapheme clusters where the browser can tell, else code points) at NAME_LIMIT
  // bytes of UTF-8, like the server, so what we show ourselves is what the others see.
  const text = stripped.trim();
  const characters = typeof Intl === "object" && Intl.Segmenter
    ? Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text), part => part.segment)
    : Array.from(text);
  const utf8 = new TextEncoder();
  let name = "";
  let bytes = 0;
  for (const character of characters) {
    const size = utf8.encode(character).length;
    if (bytes + size > NAME_LIMIT) break;
    name += character;
    bytes += size;
  }
  name = name.trim();
  return name === "" ? null : name;
}

/** What a peer's tile shows: its name, or the short socketId. */
const label = peer => peer.name || short(peer.id);

/** The tile's title: the label, then what the peer said it switched off (`_media_state`, conftui's extension). */
function tileTitle(peer) {
  const off = [];
  if (peer.media && peer.media.audioMuted) off.push("muted");
  if (peer.media && !peer.media.videoOn) off.push("video off");
  return [label(peer), ...off].join(" · ");
}

/** `{audioMuted, videoOn}` when both are booleans, else null (what a server relays is checked like any input). */
function mediaState(value) {
  if (!value || typeof value !== "object") return null;
  if (typeof value.audioMuted !== "boolean" || typeof value.videoOn !== "boolean") return null;
  return { audioMuted: value.audioMuted, videoOn: value.videoOn };
}

function roomFromFragment() {
  try {
    return decodeURIComponent(location.hash.slice(1));
  } catch {
    return location.hash.slice(1);
  }
}

function signalingURL() {
  return (location.protocol === "https:" ? "wss:" : "ws:") + "//" + location.host + "/";
}

// ---------------------------------------------------------------------------------------------------------
// Local media: the camera and microphone, or a synthetic picture and tone when there are none.

/** The camera size to ask for: ?size=WxH within 64x48..1280x720, else 320x240. */
function cameraSize() {
  const match = /^(\d{2,4})x(\d{2,4})$/i.exec(params.get("size") || "");
  const width = match ? Number(match[1]) : 0;
  const height = match ? Number(match[2]) : 0;
  if (width >= 64 && width <= 1280 && height >= 48 && height <= 720) return { width, height };
  if (params.get("size")) log("ignoring ?size=" + params.get("size") + ": WIDTHxHEIGHT from 64x48 to 1280x720");
  return { width: 320, height: 240 };
}

async function openMedia() {
  let camera = null;
  let microphone = null;
  let reason = "";
  const devices = navigator.mediaDevices;
  if (devices && devices.getUserMedia) {
    const video = cameraSize();
    try {
      const stream = await devices.getUserMedia({ video, audio: true });
      camera = stream.getVideoTracks()[0] || null;
      microphone = stream.getAudioTracks()[0] || null;
    } catch (error) {
      reason = error.name;
      // A missing or busy device fails the whole request; try each kind alone before faking it.
      // After a refusal (NotAllowedError) asking again would only annoy the user.
      if (error.name !== "NotAllowedError" && error.name !== "SecurityError") {
        camera = await devices.getUserMedia({ video }).then(s => s.getVideoTracks()[0], () => null);
        microphone = await devices.getUserMedia({ audio: true }).then(s => s.getAudioTracks()[0], () => null);
      }
    }
  } else {
    reason = "no navigator.mediaDevices (the page is not a secure context: use https or localhost)";
  }
  const picture = camera ? null : syntheticPicture();
  const tone = microphone ? null : syntheticTone();
  const videoTrack = camera || (picture && picture.track) || null;
  const audioTrack = microphone || (tone && tone.track) || null;
  const stream = new MediaStream([audioTrack, videoTrack].filter(Boolean));
  const media = {
    stream, audioTrack, videoTrack,
    kind: camera ? "camera" : "synthetic",
    description: (camera ? "camera" : "synthetic picture") + " + " + (microphone ? "microphone" : "synthetic tone"),
    setName(name) { if (picture) picture.name = name; },
    stop() {
      for (const track of stream.getTracks()) track.stop();
      if (picture) picture.stop();
      if (tone) tone.stop();
    },
  };
  log("local media:", media.description + (reason ? " (getUserMedia: " + reason + ")" : ""));
  return media;
}

/** A 320x240 canvas stream: a moving ball, the participant's name and a clock, at 15 frames per second. */
function syntheticPicture() {
  const canvas = document.createElement("canvas");
  canvas.width = 320;
  canvas.height = 240;
  const g = canvas.getContext("2d");
  const picture = { name: "conftui", track: null, stop: null };
  let frame = 0;
  const draw = () => {
    frame += 1;
    const t = frame / 15;
    g.fillStyle = "#10151c";
    g.fillRect(0, 0, 320, 240);
    g.fillStyle = "hsl(" + ((frame * 3) % 360) + " 70% 55%)";
    g.beginPath();
    g.arc(160 + Math.sin(t) * 130, 140 + Math.cos(t * 1.3) * 50, 22, 0, 2 * Math.PI);
    g.fill();
    g.fillStyle = "#e6edf3";
    g.textAlign = "center";
    g.font = "bold 22px sans-serif";
    g.fillText(picture.name, 160, 36);
    g.font = "13px monospace";
    g.fillText("synthetic " + new Date().toISOString().slice(11, 21), 160, 58);
  };
  draw();
  const timer = setInterval(draw, 1000 / 15);
  picture.track = canvas.captureStream(15).getVideoTracks()[0];
  picture.stop = () => clearInterval(timer);
  return picture;
}

/** A quiet 440 Hz beep, half a second on and half off, from WebAudio. */
function syntheticTone() {
  try {
    const context = new AudioContext();
    const tone = context.createOscillator();
    tone.frequency.value = 440;
    const volume = context.createGain();
    volume.gain.value = 0.05;
    const beat = context.createOscillator();   // a 1 Hz square wave swings the volume between 0 and 0.1
    beat.type = "square";
    beat.frequency.value = 1;
    const depth = context.createGain();
    depth.gain.value = 0.05;
    beat.connect(depth).connect(volume.gain);
    const sink = context.createMediaStreamDestination();
    tone.connect(volume).connect(sink);
    tone.start();
    beat.start();
    if (context.state === "suspended") {
      // Browsers start audio only after a user gesture unless the autoplay policy says otherwise.
      document.addEventListener("click", () => context.resume(), { once: true });
    }
    return { track: sink.stream.getAudioTracks()[0], stop: () => context.close() };
  } catch (error) {
    log("no synthetic tone:", error);
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Tiles: own first, then peers in the order they joined (the DOM order), three per row.

function makeTile(name, isSelf) {
  const tile = document.createElement("figure");
  tile.className = isSelf ? "tile self" : "tile";
  const video = document.createElement("video");
  video.autoplay = true;
  video.playsInline = true;
  video.muted = isSelf;   // never play our own microphone back
  const caption = document.createElement("figcaption");
  const nameLabel = document.createElement("span");
  nameLabel.className = "name";
  const stateLabel = document.createElement("span");
  stateLabel.className = "state";
  caption.append(nameLabel, stateLabel);
  tile.append(video, caption);
  ui.grid.append(tile);
  const handle = {
    element: tile, video,
    setName(text) { nameLabel.textContent = text; },
    setState(text) { stateLabel.textContent = text; tile.dataset.state = text; },
    show(stream) {
      if (video.srcObject !== stream) video.srcObject = stream;
      video.play().catch(error => {
        // Autoplay with sound refused: play muted and let a click bring the sound back.
        log("autoplay refused (" + error.name + "), playing muted until clicked");
        video.muted = true;
        video.play().catch(() => {});
        tile.addEventListener("click", () => { video.muted = isSelf; video.play().catch(() => {}); }, { once: true });
      });
    },
    remove() { video.srcObject = null; tile.remove(); },
  };
  handle.setName(name);
  return handle;
}

// ---------------------------------------------------------------------------------------------------------
// Signaling and the mesh.

function join() {
  const room = roomFromFragment();
  const s = {
    room, you: "", signaling: "connecting", peers: new Map(), media: null, closed: false,
    selfTile: makeTile("you", true), ws: null, mediaReady: null,
  };
  session = s;
  ui.error.textContent = "";
  ui.notice.textContent = "";
  ui.mute.textContent = "Mute";
  ui.video.textContent = "Video off";
  ui.mute.hidden = ui.video.hidden = false;
  ui.mute.removeAttribute("aria-pressed");
  ui.video.removeAttribute("aria-pressed");
  ui.rejoin.hidden = true;
  ui.leave.hidden = false;
  ui.leave.disabled = false;
  s.selfTile.setState("starting media");
  // Media is opened at once, in parallel with signaling; every offer and answer waits for it, so a
  // `_new_peer` or `_offer` that arrives before getUserMedia finishes is answered with our tracks, and never
  // offered to (the original client offered to it too when the media came: glare).
  s.mediaReady = openMedia().then(media => {
    if (s.closed) { media.stop(); return media; }
    s.media = media;
    if (s.you) media.setName(ownName || short(s.you));
    s.selfTile.show(media.stream);
    showLocalState(s);
    ui.mute.disabled = !media.audioTrack;
    ui.video.disabled = !media.videoTrack;
    updateStatus();
    return media;
  });
  const url = signalingURL();
  log("connecting to", url, "room", room === "" ? "(server default)" : JSON.stringify(room));
  const ws = new WebSocket(url);
  s.ws = ws;
  ws.onopen = () => {
    if (session !== s) return;
    log("signaling connected");
    send(s, "__join", ownName ? { room, name: ownName } : { room });
  };
  ws.onmessage = event => {
    if (session !== s) return;
    if (typeof event.data === "string") receive(s, event.data);
    else event.data.text().then(text => session === s && receive(s, text));
  };
  ws.onerror = () => log("signaling socket error");
  ws.onclose = event => {
    if (session !== s || s.closed) return;
    log("signaling closed, code", event.code);
    end(s, "disconnected", "disconnected from the signaling server");
  };
  updateStatus();
}

function send(s, eventName, data) {
  if (s.ws.readyState !== WebSocket.OPEN) {
    log("cannot send", eventName, ": signaling is not open");
    return;
  }
  s.ws.send(JSON.stringify({ eventName, data }));
}

function receive(s, text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch (error) {
    log("unreadable signaling message:", error);
    return;
  }
  if (!message || typeof message !== "object") return;
  const data = message.data && typeof message.data === "object" ? message.data : {};
  switch (message.eventName) {
    case "_peers": return onPeers(s, data);
    case "_new_peer": return onNewPeer(s, data);
    case "_remove_peer": return onRemovePeer(s, data);
    case "_offer": return onOffer(s, data);
    case "_answer": return onAnswer(s, data);
    case "_ice_candidate": return onRemoteCandidate(s, data);
    case "_media_state": return onMediaState(s, data);
    case "_error": return onServerError(data);
    default: log("ignored event", String(message.eventName));
  }
}

function onPeers(s, data) {
  s.you = String(data.you || "");
  s.signaling = "joined";
  // The original server lists a socket twice after a rejoin on one socket (ghosts): offer once per id.
  const listed = Array.isArray(data.connections) ? data.connections.map(String) : [];
  const ids = [...new Set(listed)].filter(id => id && id !== s.you);
  // Display names (conftui's extension): {<socketId>: name} for those that gave one; absent on the original.
  const names = data.names && typeof data.names === "object" ? data.names : {};
  const nameOf = id => (Object.prototype.hasOwnProperty.call(names, id) ? displayName(names[id]) : null);
  log("joined as", short(s.you) + (ownName ? " (" + ownName + ")" : ""), "with", ids.length, "peer(s):",
      ids.map(id => short(id) + (nameOf(id) ? " (" + nameOf(id) + ")" : "")).join(" ") || "none");
  s.selfTile.setName("you · " + (ownName || short(s.you)));
  if (s.media) s.media.setName(ownName || short(s.you));
  // Media states (conftui's extension): {<socketId>: {audioMuted, videoOn}} of those that announced one.
  const media = data.media && typeof data.media === "object" ? data.media : {};
  // The newcomer offers to everyone already there (SkyRTC rule), once its media is ready.
  for (const id of ids) {
    const peer = addPeer(s, id, "offerer", nameOf(id));
    if (Object.prototype.hasOwnProperty.call(media, id)) setPeerMedia(peer, mediaState(media[id]));
    enqueue(peer, () => offer(s, peer));
  }
  s.mediaReady.then(() => announceMedia(s), () => {});
  updateStatus();
}

function onMediaState(s, data) {
  const peer = s.peers.get(String(data.socketId || ""));
  const state = mediaState(data);
  if (!peer || !state) return;
  log("peer", short(peer.id), state.audioMuted ? "muted" : "unmuted", "·", state.videoOn ? "video on" : "video off");
  setPeerMedia(peer, state);
}

function setPeerMedia(peer, state) {
  if (!state) return;
  peer.media = state;
  peer.tile.setName(tileTitle(peer));
}

/** Tells the room our microphone and camera state (`__media_state`; the original server ignores the event). */
function announceMedia(s) {
  if (!s || s.closed || !s.you || !s.media) return;
  const audio = s.media.audioTrack, video = s.media.videoTrack;
  send(s, "__media_state", { audioMuted: !(audio && audio.enabled), videoOn: !!(video && video.enabled) });
}

function onNewPeer(s, data) {
  const id = String(data.socketId || "");
  if (!id) return;
  const name = displayName(data.name);
  log("peer", short(id) + (name ? " (" + name + ")" : ""), "joined; waiting for its offer");
  addPeer(s, id, "answerer", name);
  updateStatus();
}

function onRemovePeer(s, data) {
  const id = String(data.socketId || "");
  const peer = s.peers.get(id);
  if (!peer) return;
  log("peer", short(id), "left");
  closePeer(s, peer);
  updateStatus();
}

function onOffer(s, data) {
  const id = String(data.socketId || "");
  if (!id || id === s.you) return;
  // An offer from someone we were not told about (e.g. another room on the original server): still answer.
  const peer = s.peers.get(id) || addPeer(s, id, "answerer");
  enqueue(peer, async () => {
    const media = await s.mediaReady;
    if (peer.closed) return;
    if (peer.pc.signalingState !== "stable") log("offer from", short(id), "in state", peer.pc.signalingState);
    await peer.pc.setRemoteDescription(description(data.sdp, "offer"));
    attachToOfferedTransceivers(peer, media);
    await flushCandidates(peer);
    await peer.pc.setLocalDescription(await peer.pc.createAnswer());
    const local = peer.pc.localDescription;
    send(s, "__answer", { socketId: id, sdp: { type: local.type, sdp: local.sdp } });
    log("answered", short(id));
  });
}

function onAnswer(s, data) {
  const peer = s.peers.get(String(data.socketId || ""));
  if (!peer) return log("answer from unknown peer", short(data.socketId));
  enqueue(peer, async () => {
    if (peer.pc.signalingState !== "have-local-offer") {
      log("answer from", short(peer.id), "ignored in state", peer.pc.signalingState);
      return;
    }
    await peer.pc.setRemoteDescription(description(data.sdp, "answer"));
    await flushCandidates(peer);
    log("answer from", short(peer.id), "applied");
  });
}

function onRemoteCandidate(s, data) {
  const peer = s.peers.get(String(data.socketId || ""));
  if (!peer || typeof data.candidate !== "string") return;
  // Standard keys win; otherwise SkyRTC's: `id` is the sdpMid (iOS, patched server), `label` the m-line index.
  // The original server forwards only `label`, which is enough for a BUNDLE peer.
  const init = { candidate: data.candidate };
  if (data.sdpMid != null) init.sdpMid = String(data.sdpMid);
  else if (data.id != null) init.sdpMid = String(data.id);
  if (data.sdpMLineIndex != null) init.sdpMLineIndex = Number(data.sdpMLineIndex);
  else if (data.label != null) init.sdpMLineIndex = Number(data.label);
  if (init.sdpMid === undefined && init.sdpMLineIndex === undefined) init.sdpMLineIndex = 0;
  enqueue(peer, async () => {
    if (!peer.pc.remoteDescription) {
      peer.pendingCandidates.push(init);   // too early: applied once the remote description is set
      return;
    }
    await addCandidate(peer, init);
  });
}

function onServerError(data) {
  const text = "server error" + (data.code != null ? " " + String(data.code) : "") + ": " + String(data.message || "");
  log(text);
  ui.error.textContent = text;
}

function description(sdp, expectedType) {
  if (typeof sdp === "string") return { type: expectedType, sdp };
  return { type: sdp && sdp.type ? String(sdp.type) : expectedType, sdp: String(sdp && sdp.sdp || "") };
}

async function flushCandidates(peer) {
  const pending = peer.pendingCandidates.splice(0);
  for (const init of pending) await addCandidate(peer, init);
}

async function addCandidate(peer, init) {
  try {
    await peer.pc.addIceCandidate(init);
  } catch (error) {
    log("candidate from", short(peer.id), "rejected:", error, init.candidate);
  }
}

/** Runs `task` after every earlier task of this peer, so one peer's signaling is applied in order. */
function enqueue(peer, task) {
  peer.queue = peer.queue.then(() => (peer.closed ? undefined : task())).catch(error => {
    log("peer", short(peer.id), "signaling failed:", error);
  });
}

/** The peer with this id, made if new; `name` (a cleaned display name or null) relabels a known one. */
function addPeer(s, id, role, name = null) {
  const existing = s.peers.get(id);
  if (existing) {
    if (name && name !== existing.name) {
      existing.name = name;
      existing.tile.setName(tileTitle(existing));
    }
    return existing;
  }
  const pc = new RTCPeerConnection(rtcConfiguration);
  const peer = {
    id, name, role, pc, closed: false, queue: Promise.resolve(), pendingCandidates: [], media: null,
    stream: new MediaStream(), tile: null,
  };
  peer.tile = makeTile(label(peer), false);
  s.peers.set(id, peer);
  peer.tile.setState(role === "offerer" ? "new" : "waiting for offer");
  pc.onicecandidate = event => {
    const c = event.candidate;
    if (!c || !c.candidate) return;   // end of candidates: SkyRTC has no message for it
    send(s, "__ice_candidate", { socketId: id, label: c.sdpMLineIndex, id: c.sdpMid, candidate: c.candidate });
  };
  pc.ontrack = event => {
    // Collect tracks in our own stream: a peer without a=msid gives no event.streams.
    if (!peer.stream.getTracks().includes(event.track)) peer.stream.addTrack(event.track);
    peer.tile.show(peer.stream);
  };
  pc.onconnectionstatechange = () => {
    log("peer", short(id), "connection", pc.connectionState);
    peer.tile.setState(pc.connectionState);
    updateStatus();
  };
  pc.oniceconnectionstatechange = () => log("peer", short(id), "ice", pc.iceConnectionState);
  return peer;
}

/** Offerer side: exactly one audio and one video m-line, both sendrecv, whatever local media we have. */
async function offer(s, peer) {
  const media = await s.mediaReady;
  if (peer.closed) return;
  for (const kind of ["audio", "video"]) {
    const track = kind === "audio" ? media.audioTrack : media.videoTrack;
    peer.pc.addTransceiver(track || kind, { direction: "sendrecv", streams: [media.stream] });
  }
  await peer.pc.setLocalDescription(await peer.pc.createOffer());
  const local = peer.pc.localDescription;
  send(s, "__offer", { socketId: peer.id, sdp: { type: local.type, sdp: local.sdp } });
  log("offered to", short(peer.id));
}

/** Answerer side: put our tracks on the first offered audio and video transceivers and make them sendrecv. */
function attachToOfferedTransceivers(peer, media) {
  for (const kind of ["audio", "video"]) {
    const track = kind === "audio" ? media.audioTrack : media.videoTrack;
    const transceivers = peer.pc.getTransceivers().filter(t => t.receiver.track.kind === kind && !t.stopped);
    if (transceivers.length === 0) {
      log("peer", short(peer.id), "offered no", kind);
      continue;
    }
    const transceiver = transceivers[0];
    if (transceiver.sender.track || !track) continue;
    transceiver.sender.replaceTrack(track);
    if (transceiver.sender.setStreams) transceiver.sender.setStreams(media.stream);
    transceiver.direction = "sendrecv";
  }
}

function closePeer(s, peer) {
  peer.closed = true;
  peer.pc.close();
  peer.tile.remove();
  s.peers.delete(peer.id);
}

function end(s, signaling, reason) {
  if (s.closed) return;
  s.closed = true;
  s.signaling = signaling;
  for (const peer of [...s.peers.values()]) closePeer(s, peer);
  if (s.ws.readyState === WebSocket.CONNECTING || s.ws.readyState === WebSocket.OPEN) s.ws.close();
  s.mediaReady.then(media => media.stop());
  s.selfTile.remove();
  ui.mute.disabled = ui.video.disabled = true;
  ui.mute.hidden = ui.video.hidden = ui.leave.hidden = true;
  ui.rejoin.hidden = false;
  ui.notice.textContent = reason;
  log(reason);
  updateStatus();
}

/** The own tile's label: where the media comes from, or what is switched off. */
function showLocalState(s) {
  const media = s.media;
  if (!media) return;
  const off = [];
  if (media.audioTrack && !media.audioTrack.enabled) off.push("muted");
  if (media.videoTrack && !media.videoTrack.enabled) off.push("video off");
  s.selfTile.setState(off.length ? off.join(" · ") : media.description);
}

function updateStatus() {
  const s = session;
  if (!s) return;
  const parts = ["room " + (s.room === "" ? "(default)" : s.room)];
  parts.push("you " + (ownName ? ownName + " " : "") + (s.you ? short(s.you) : "…"));
  const connected = [...s.peers.values()].filter(p => p.pc.connectionState === "connected").length;
  parts.push(s.peers.size + (s.peers.size === 1 ? " peer" : " peers") + " (" + connected + " connected)");
  if (s.media) parts.push(s.media.description);
  parts.push(s.signaling);
  ui.status.textContent = parts.join(" · ");
}

// ---------------------------------------------------------------------------------------------------------
// Test hook.

async function peerSummary(peer) {
  const pc = peer.pc;
  const summary = {
    name: peer.name, label: label(peer), media: peer.media, role: peer.role, connectionState: pc.connectionState, iceConnectionState: pc.iceConnectionState,
    signalingState: pc.signalingState, framesDecoded: 0, frameWidth: 0, frameHeight: 0, packetsReceived: 0,
    audioPacketsReceived: 0, videoPacketsReceived: 0, audioLevel: 0, totalAudioEnergy: 0, bytesReceived: 0,
    selectedPair: null, selectedPairTypes: null, freezeCount: 0, bytesSent: 0, availableOutgoingBitrate: null,
  };
  const report = await pc.getStats();
  const byId = new Map();
  report.forEach(stat => byId.set(stat.id, stat));
  for (const stat of byId.values()) {
    if (stat.type === "inbound-rtp") {
      summary.packetsReceived += stat.packetsReceived || 0;
      summary.bytesReceived += stat.bytesReceived || 0;
      if (stat.kind === "video") {
        summary.videoPacketsReceived += stat.packetsReceived || 0;
        summary.framesDecoded += stat.framesDecoded || 0;
        summary.freezeCount += stat.freezeCount || 0;
        if (stat.frameWidth) {
          summary.frameWidth = stat.frameWidth;
          summary.frameHeight = stat.frameHeight;
        }
      } else if (stat.kind === "audio") {
        summary.audioPacketsReceived += stat.packetsReceived || 0;
        if (typeof stat.audioLevel === "number") summary.audioLevel = Math.max(summary.audioLevel, stat.audioLevel);
        summary.totalAudioEnergy += stat.totalAudioEnergy || 0;
      }
    } else if (stat.type === "outbound-rtp") {
      summary.bytesSent += stat.bytesSent || 0;
    } else if (stat.type === "transport" && stat.selectedCandidatePairId) {
      const pair = byId.get(stat.selectedCandidatePairId);
      if (pair && typeof pair.availableOutgoingBitrate === "number") summary.availableOutgoingBitrate = pair.availableOutgoingBitrate;
      const local = pair && byId.get(pair.localCandidateId);
      const remote = pair && byId.get(pair.remoteCandidateId);
      if (local && remote) {
        summary.selectedPair = local.address + ":" + local.port + " -> " + remote.address + ":" + remote.port;
        summary.selectedPairTypes = local.candidateType + "/" + remote.candidateType;
      }
    }
  }
  return summary;
}

async function snapshot() {
  const s = session;
  const state = {
    you: null, room: null, name: ownName, media: null, mediaDescription: null, signaling: "none", peers: {},
  };
  if (!s) return state;
  Object.assign(state, {
    you: s.you || null, room: s.room, signaling: s.signaling,
    media: s.media ? s.media.kind : null, mediaDescription: s.media ? s.media.description : null,
  });
  for (const [id, peer] of s.peers) state.peers[id] = await peerSummary(peer);
  return state;
}

// ---------------------------------------------------------------------------------------------------------
// Controls.

ui.mute.addEventListener("click", () => {
  const track = session && session.media && session.media.audioTrack;
  if (!track) return;
  track.enabled = !track.enabled;
  ui.mute.textContent = track.enabled ? "Mute" : "Unmute";
  ui.mute.setAttribute("aria-pressed", String(!track.enabled));
  log(track.enabled ? "microphone on" : "microphone muted");
  showLocalState(session);
  announceMedia(session);
});

ui.video.addEventListener("click", () => {
  const track = session && session.media && session.media.videoTrack;
  if (!track) return;
  track.enabled = !track.enabled;
  ui.video.textContent = track.enabled ? "Video off" : "Video on";
  ui.video.setAttribute("aria-pressed", String(!track.enabled));
  log(track.enabled ? "video on" : "video off");
  showLocalState(session);
  announceMedia(session);
});

ui.leave.addEventListener("click", () => session && end(session, "left", "left the room"));

ui.rejoin.addEventListener("click", () => join());

window.addEventListener("hashchange", () => {
  // Another room: leave this one and join that one.
  if (session && !session.closed) end(session, "left", "left the room");
  join();
});

window.addEventListener("pagehide", () => session && end(session, "left", "left the room"));

join();
