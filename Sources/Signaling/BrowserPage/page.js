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
 * Chat and files (docs/chat-and-files.md): the offerer makes one ordered, reliable data channel per peer before its
 * first offer, labelled "undefined" as the original's was; the answerer takes whichever channel the offerer opens.
 * Every message is JSON text: `__msg` is chat, `__file` (ask, accept, refuse, chunk) a file as its base64 data URL in
 * chunks of at most 64 KiB of JSON, sent as the channel drains; any other type shows its `data` as chat. The chat
 * panel sends to every open channel; a file offer waits for Accept or Refuse. ?say=TEXT (repeatable) sends TEXT to
 * each peer once its channel opens; ?acceptFiles=1 accepts every offer; ?echo=1 answers a chat "ping X" with "pong X".
 *
 * Janus mode (?janus=ws://HOST:8188/&room=1234, optional &pin=PIN; the "Janus mode" section below): the page joins a
 * Janus VideoRoom instead of a SkyRTC room, with the same grid, labels and buttons, and chat: `__msg` text goes out on
 * one channel of the publisher connection and Janus relays it to every subscriber; what others say arrives on the
 * subscriber connection's channels, each labelled with its sender's feed id. No files there (`__file` is dropped),
 * no ?say=. The state keeps the shape below with `you` our feed id (a string), `room` the room number (a string),
 * `peers` keyed by feed id (role "subscriber", `display` = `name`, figures from the one subscriber connection by mid,
 * `media` inferred from packets that stop), plus `mode: "janus"`, per peer `fps` (frames decoded per second over the
 * last ~3 s), `talking` and `mids`, and `janus`: {url, room, feed, privateId, sessionId, createdRoom,
 * publisherConnection, subscriberConnection, subscription, subscribed, streams (the latest attached/updated list),
 * offersAnswered, postponed, mids {audio, video}, sent {bytesSent, framesEncoded, packetsSent}, coreEvents, channel
 * (our publisher channel's readyState, null before publishing), subscriberChannel (the readyState of the channel we
 * open on the subscriber connection so that Janus relays data to it), error: null or {code (Janus's error_code, null
 * for other failures), text}}; `signaling` is "failed" after a Janus error. `chat` entries have `from` = the sender's
 * feed id, `channels` the readyState of each sender's relayed channel by feed id, and `chatSent[].to` the feeds in
 * the room then.
 *
 * Test hook:
 *   window.conftui.state() -> Promise of {mode ("skyrtc"|"janus"), you (null until `_peers`), room (the fragment, "" = default),
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
 *     and chat: [{from (socketId), name (its label then), text, atMs}] (every received chat line, in order),
 *     chatSent: [{to: [socketId], text, atMs}], files: [{from, name, size, sha256 (hex, null until hashed or when
 *     not received), state: "received"|"refused"|"failed"}] (incoming files once ended), fileTimes: [{from, name, state,
 *     acceptedAtMs (null if never accepted), endedAtMs}] (the same files' Date.now() at accept and at the end, which
 *     time a transfer for the bench), filesSent: [{name, size,
 *     sha256, to: {<socketId>: "offered"|"sending"|"sent"|"refused"|"failed"}}], channels: {<socketId>: readyState}
 *     (every channel of this join, also after its peer left); the lists keep the last RECORD_LIMIT entries
 *   window.conftui.log -> the most recent log lines (each is also console.log'ged with a "[conftui]" prefix).
 *   window.conftuiSendFile(name, lengthOrBase64) -> offers a file as "Send file" does: that many deterministic
 *       pseudo-random bytes (syntheticBytes) or the base64 string's bytes; resolves with its filesSent record.
 *   window.conftuiPing(n) -> n chat round trips to each open channel whose page has ?echo=1: {<socketId>: [ms]}.
 */

const LOG_LIMIT = 400;
const NAME_LIMIT = 64;   // bytes of UTF-8, the server's cap (SkyRTCDisplayName.maxBytes)
// The original client called pc.createDataChannel(label) with label undefined, which WebIDL turns into "undefined".
const SKYRTC_CHANNEL_LABEL = "undefined";
const MESSAGE_LIMIT = 300 * 1000;           // characters (bytes) of one received message; larger ones are dropped
const CHUNK_MESSAGE_LIMIT = 64 * 1024;      // one file chunk's JSON, at most (and at most the peer's max message size)
const CHUNK_ENVELOPE = 256;                 // room left in it for everything around `data`
const CHANNEL_BUFFER_HIGH = 1024 * 1024;    // file chunks wait while the channel has this much buffered
const CHANNEL_BUFFER_LOW = 256 * 1024;      // ... until it drains to this (bufferedAmountLowThreshold)
const READ_BLOCK = 3 * 16 * 1024;           // bytes of a file read at a time: a multiple of 3, so base64 joins up
const FILE_LIMIT = 1024 * 1024 * 1024;      // offers of larger files are refused
const PENDING_OFFERS_PER_PEER = 4;          // offered or being received, per peer; more are refused
const DATA_URL_HEADER_LIMIT = 300;          // "data:<mime>;base64" of a received file
const FILE_NAME_LIMIT = 255;                // bytes of UTF-8 of an offered name; longer offers are dropped
const FILE_IDLE_LIMIT = 60 * 1000;          // a file being received fails after this long without a chunk
const HASH_LIMIT = 256 * 1024 * 1024;       // received files up to this size get a sha256 (it reads them whole)
const CHAT_TEXT_LIMIT = 16 * 1024;          // characters of one chat line we send
const RECORD_LIMIT = 1000;                  // chat lines and file records kept (panel and test hook)
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
  messages: document.getElementById("messages"),
  chatNote: document.getElementById("chat-note"),
  chatForm: document.getElementById("chat-form"),
  chatInput: document.getElementById("chat-input"),
  chatSend: document.getElementById("chat-send"),
  fileInput: document.getElementById("file-input"),
  fileSend: document.getElementById("file-send"),
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
  const stripped = withoutControls(value);
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

/** `text` without C0/C1/DEL controls and bidi or invisible format characters. */
function withoutControls(text) {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g, "");
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

// A new session becomes the page's: errors and notices cleared, the call buttons back to their first state.
function startSession(s) {
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
}

function join() {
  if (janusMode) return janusJoin();
  const room = roomFromFragment();
  const s = {
    room, you: "", signaling: "connecting", peers: new Map(), media: null, closed: false,
    selfTile: makeTile("you", true), ws: null, mediaReady: null, channels: new Map(),
  };
  startSession(s);
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
  if (s && s.janus) return janusConfigureMedia(s);
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
    stream: new MediaStream(), tile: null, channel: null, said: false,
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
  // The answerer's channel is the one the offerer opens, whatever its label.
  pc.ondatachannel = event => attachChannel(s, peer, event.channel);
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
  // SkyRTC's chat and file channel: made by the offerer before its first offer, once per connection (a later
  // offer on the same connection keeps it).
  if (!peer.channel) attachChannel(s, peer, peer.pc.createDataChannel(SKYRTC_CHANNEL_LABEL, { ordered: true }));
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
  endTransfersOf(peer, null, label(peer) + " left");
  peer.pc.close();
  peer.tile.remove();
  s.peers.delete(peer.id);
}

function end(s, signaling, reason) {
  if (s.janus) return janusEnd(s, signaling, reason);
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
  const connected = s.janus
    ? (s.janus.subPc && s.janus.subPc.connectionState === "connected" ? s.peers.size : 0)
    : [...s.peers.values()].filter(p => p.pc.connectionState === "connected").length;
  parts.push(s.peers.size + (s.peers.size === 1 ? " peer" : " peers") + " (" + connected + " connected)");
  if (s.media) parts.push(s.media.description);
  parts.push(s.signaling);
  if (s.janus) parts.unshift("Janus");
  ui.status.textContent = parts.join(" · ");
  updateChatControls();
}

// ---------------------------------------------------------------------------------------------------------
// Chat and files: SkyRTC's data-channel sub-protocol (docs/chat-and-files.md), one channel per peer.

/** Every received chat message, our own, and the files, for the panel and the test hook (survives a rejoin). */
const exchange = { chat: [], chatSent: [], files: [], fileTimes: [], filesSent: [], incoming: new Map(), outgoing: new Map() };
const sayTexts = params.getAll("say").filter(text => text !== "");
const acceptAll = params.get("acceptFiles") === "1";
const echoPings = params.get("echo") === "1";
const pingWaiters = new Map();   // "ping <token>" text -> resolve(arrival time) of conftuiPing

function randomSendId() {
  return Math.random().toString(36).slice(2).toUpperCase() + Date.now().toString(36).toUpperCase();
}

const validSendId = id => typeof id === "string" && /^[0-9A-Za-z-]{1,64}$/.test(id);
const openChannel = peer => peer.channel && peer.channel.readyState === "open";
const openPeers = s => (s && !s.closed ? [...s.peers.values()].filter(openChannel) : []);
const clock = () => new Date().toTimeString().slice(0, 8);

function formatSize(bytes) {
  if (bytes < 1024) return bytes + " B";
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return value.toFixed(value < 10 ? 1 : 0) + " " + units[unit];
}

/** Wires a channel to its peer: ours (offerer, made before the first offer) or the one the offerer opened. */
function attachChannel(s, peer, channel) {
  if (peer.channel && peer.channel !== channel) log("peer", short(peer.id), "opened another channel; using it");
  peer.channel = channel;
  s.channels.set(peer.id, channel);
  channel.binaryType = "arraybuffer";
  channel.bufferedAmountLowThreshold = CHANNEL_BUFFER_LOW;
  channel.onopen = () => {
    log("peer", short(peer.id), "channel open (label " + JSON.stringify(channel.label) + ")");
    updateChatControls();
    if (peer.said || peer.channel !== channel) return;
    peer.said = true;
    for (const text of sayTexts) sendChat(s, text, [peer]);
  };
  channel.onclose = () => {
    log("peer", short(peer.id), "channel closed");
    endTransfersOf(peer, channel, "the channel closed");
    updateChatControls();
  };
  channel.onerror = event => log("peer", short(peer.id), "channel error:", event.error || "unknown");
  channel.onmessage = event => onChannelMessage(s, peer, event.data);
}

function sendOn(peer, message) {
  try {
    peer.channel.send(JSON.stringify(message));
    return true;
  } catch (error) {
    log("sending to", short(peer.id), "failed:", error);
    return false;
  }
}

function onChannelMessage(s, peer, data) {
  if (typeof data !== "string") return log("binary message from", short(peer.id), "dropped");
  if (data.length > MESSAGE_LIMIT || (data.length > MESSAGE_LIMIT / 3 && new TextEncoder().encode(data).length > MESSAGE_LIMIT)) {
    return log("message of", data.length, "characters from", short(peer.id), "dropped (over 300 KB)");
  }
  let message;
  try {
    message = JSON.parse(data);
  } catch (error) {
    return log("unreadable message from", short(peer.id), "dropped:", error);
  }
  const isObject = message !== null && typeof message === "object" && !Array.isArray(message);
  // A terminal in a Janus room says which simulcast encoding it takes, so publishers can stop the other one; the page
  // takes the full one and says nothing, which publishers count as wanting both.
  if (isObject && message.type === "__layers" && s.janus) return;
  if (isObject && message.type === "__file") {
    // Through the SFU every participant would see every ask, accept and chunk meant for one of them.
    if (s.janus) return log("file message from feed", peer.id, "dropped: files are shared in mesh rooms only");
    return onFileMessage(s, peer, message);
  }
  // Chat: `__msg`, and like the original any other type shows its `data`; a message that is not an object, or has
  // no `data`, shows as it came (the original would show "undefined" or throw).
  const text = isObject && "data" in message ? String(message.data) : data;
  receiveChat(s, peer, text);
}

function receiveChat(s, peer, text) {
  const atMs = Date.now();
  // A Janus feed id is too long to be cut like a socketId and still tell two speakers apart: shown whole.
  const name = s.janus ? peer.name || peer.id : label(peer);
  exchange.chat.push({ from: peer.id, name, text, atMs });
  if (exchange.chat.length > RECORD_LIMIT) exchange.chat.splice(0, exchange.chat.length - RECORD_LIMIT);
  const waiter = pingWaiters.get(text);
  if (waiter) waiter(atMs);
  showChat(name, text, false);
  if (echoPings && text.startsWith("ping ") && openChannel(peer)) sendChat(s, "pong " + text.slice(5), [peer]);
}

/** Sends `text` as `__msg` to `peers` (default: every open channel); false when nobody could get it. */
function sendChat(s, text, peers = openPeers(s)) {
  if (s && s.janus) return janusSendChat(s, text);
  const to = peers.filter(peer => openChannel(peer) && sendOn(peer, { type: "__msg", data: text }));
  if (to.length === 0) return false;
  exchange.chatSent.push({ to: to.map(peer => peer.id), text, atMs: Date.now() });
  if (exchange.chatSent.length > RECORD_LIMIT) exchange.chatSent.splice(0, exchange.chatSent.length - RECORD_LIMIT);
  showChat("you", text, true);
  return true;
}

function chatLine(className) {
  const item = document.createElement("li");
  if (className) item.className = className;
  const time = document.createElement("time");
  time.textContent = clock();
  item.append(time, " ");
  ui.messages.append(item);
  while (ui.messages.children.length > RECORD_LIMIT) ui.messages.firstElementChild.remove();
  ui.messages.scrollTop = ui.messages.scrollHeight;
  return item;
}

function showChat(name, text, self) {
  const item = chatLine(self ? "self" : "");
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = name;
  const body = document.createElement("span");
  body.className = "text";
  body.textContent = text;
  item.append(who, ": ", body);
}

function showNote(text) {
  const note = document.createElement("span");
  note.className = "note";
  note.textContent = text;
  chatLine("").append(note);
}

function updateChatControls() {
  if (janusMode) return janusChatControls(session);
  const open = openPeers(session).length;
  ui.chatSend.disabled = ui.fileSend.disabled = open === 0;
  ui.chatNote.textContent = open > 0 ? "" :
    session && !session.closed && session.peers.size > 0 ? "No chat channel is open yet." : "Nobody to chat with.";
}

// Receiving files: an offer waits for Accept or Refuse; accepted, its data URL is decoded as it arrives.

function onFileMessage(s, peer, message) {
  const id = message.sendId;
  if (!validSendId(id)) return log("file message from", short(peer.id), "without a valid sendId dropped");
  const key = peer.id + " " + id;
  switch (message.signal) {
    case "ask": return onFileOffer(s, peer, message, key);
    case "chunk": return onFileChunk(peer, message, key);
    case "accept": return onFileAccept(s, peer, key);
    case "refuse": {
      const out = exchange.outgoing.get(key);
      if (out) return finishSend(out, "refused", "refused");
      const incoming = exchange.incoming.get(key);
      if (incoming) return finishReceive(incoming, "failed", "cancelled by " + label(peer), false);
      return;
    }
    default: log("file signal", JSON.stringify(String(message.signal)), "from", short(peer.id), "dropped");
  }
}

/**
 * The name an offered file is shown and saved under: what follows the last "/" or "\\", without controls and
 * format characters (a bidi override would make "\u202egpj.exe" read as "exe.jpg") and leading dots; "file" if
 * nothing is left.
 */
function safeFileName(name) {
  const base = withoutControls(name.slice(Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\")) + 1));
  return base.replace(/^\.+/, "").trim() || "file";
}

function onFileOffer(s, peer, message, key) {
  const offered = typeof message.name === "string" ? message.name : "";
  const size = message.size;
  if (!offered || new TextEncoder().encode(offered).length > FILE_NAME_LIMIT || !Number.isSafeInteger(size) || size < 0) {
    return log("malformed file offer from", short(peer.id), "dropped");
  }
  const name = safeFileName(offered);
  if (exchange.incoming.has(key)) return log("repeated file offer", message.sendId, "from", short(peer.id), "dropped");
  const incoming = {
    key, peer, sendId: message.sendId, name, size, from: peer.id, fromName: label(peer), state: "offered",
    parts: [], received: 0, header: "", carry: "", row: null, status: null, lastChunkAt: 0,
  };
  const item = chatLine("");
  incoming.row = item;
  const line = document.createElement("span");
  line.className = "file";
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = incoming.fromName;
  incoming.status = document.createElement("span");
  incoming.status.className = "progress";
  line.append(who, " offers " + name + " (" + formatSize(size) + "): ", incoming.status);
  item.append(line);
  const pending = [...exchange.incoming.values()].filter(other => other.peer === peer).length;
  if (size > FILE_LIMIT || pending >= PENDING_OFFERS_PER_PEER) {
    const reason = size > FILE_LIMIT ? "over " + formatSize(FILE_LIMIT) : PENDING_OFFERS_PER_PEER + " offers already pending";
    sendOn(peer, { type: "__file", signal: "refuse", sendId: incoming.sendId });
    return finishReceive(incoming, "refused", "refused automatically: " + reason, false);
  }
  exchange.incoming.set(key, incoming);
  log("peer", short(peer.id), "offers a file of", size, "bytes");
  const accept = document.createElement("button");
  accept.type = "button";
  accept.textContent = "Accept";
  const refuse = document.createElement("button");
  refuse.type = "button";
  refuse.textContent = "Refuse";
  incoming.buttons = [accept, refuse];
  accept.addEventListener("click", () => acceptFile(incoming));
  refuse.addEventListener("click", () => {
    if (incoming.state !== "offered") return;
    sendOn(peer, { type: "__file", signal: "refuse", sendId: incoming.sendId });
    finishReceive(incoming, "refused", "refused", false);
  });
  incoming.status.before(accept, " ", refuse, " ");
  if (acceptAll) acceptFile(incoming);
}

function acceptFile(incoming) {
  if (incoming.state !== "offered") return;
  for (const button of incoming.buttons) button.remove();
  if (!openChannel(incoming.peer)) return finishReceive(incoming, "failed", "the channel is closed", false);
  incoming.state = "receiving";
  incoming.lastChunkAt = incoming.acceptedAtMs = Date.now();
  incoming.status.textContent = "receiving 0%";
  sendOn(incoming.peer, { type: "__file", signal: "accept", sendId: incoming.sendId });
}

function onFileChunk(peer, message, key) {
  const incoming = exchange.incoming.get(key);
  if (!incoming || incoming.state !== "receiving") return log("chunk of a file not being received from", short(peer.id), "dropped");
  if (typeof message.data !== "string" || typeof message.last !== "boolean") {
    return finishReceive(incoming, "failed", "malformed chunk", true);
  }
  incoming.lastChunkAt = Date.now();
  let data = message.data;
  try {
    if (incoming.header !== null) {
      // Before the comma: the data URL's header, "data:<mime>;base64".
      const comma = data.indexOf(",");
      incoming.header += comma < 0 ? data : data.slice(0, comma);
      if (incoming.header.length > DATA_URL_HEADER_LIMIT) throw new Error("data URL header too long");
      if (comma < 0) data = "";
      else {
        if (!/^data:[^,]*;base64$/.test(incoming.header)) throw new Error("not a base64 data URL");
        incoming.header = null;
        data = data.slice(comma + 1);
      }
    }
    const text = incoming.carry + data;
    const whole = message.last ? text.length : text.length - (text.length % 4);
    incoming.carry = text.slice(whole);
    if (whole > 0) {
      const binary = atob(text.slice(0, whole));
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
      incoming.parts.push(bytes);
      incoming.received += bytes.length;
    }
    if (incoming.received > incoming.size) throw new Error("more bytes than offered");
    if (message.last && incoming.header !== null && !(incoming.size === 0 && incoming.header.startsWith("data:"))) {
      throw new Error("no data URL");
    }
  } catch (error) {
    return finishReceive(incoming, "failed", "failed: " + error.message, true);
  }
  if (!message.last) {
    incoming.status.textContent = "receiving " + Math.floor(incoming.received * 100 / Math.max(incoming.size, 1)) + "%";
    return;
  }
  if (incoming.received !== incoming.size) {
    return finishReceive(incoming, "failed", "failed: " + incoming.received + " of " + incoming.size + " bytes", true);
  }
  const blob = new Blob(incoming.parts);
  incoming.parts = [];
  finishReceive(incoming, "received", "received", false, blob);
}

/** Ends an incoming file; `tell` sends the peer a `refuse` (which stops the original's sender). */
function finishReceive(incoming, state, text, tell, blob = null) {
  if (incoming.state === "received" || incoming.state === "refused" || incoming.state === "failed") return;
  incoming.state = state;
  incoming.parts = [];
  exchange.incoming.delete(incoming.key);
  if (incoming.buttons) for (const button of incoming.buttons) button.remove();
  if (tell && openChannel(incoming.peer)) sendOn(incoming.peer, { type: "__file", signal: "refuse", sendId: incoming.sendId });
  incoming.status.textContent = text;
  log("file", incoming.sendId, "from", short(incoming.from) + ":", text);
  const record = { from: incoming.from, name: incoming.name, size: incoming.size, sha256: null, state };
  exchange.fileTimes.push({ from: incoming.from, name: incoming.name, state, acceptedAtMs: incoming.acceptedAtMs || null,
                            endedAtMs: Date.now() });
  if (exchange.fileTimes.length > RECORD_LIMIT) exchange.fileTimes.splice(0, exchange.fileTimes.length - RECORD_LIMIT);
  exchange.files.push(record);
  if (exchange.files.length > RECORD_LIMIT) exchange.files.splice(0, exchange.files.length - RECORD_LIMIT);
  if (!blob) return;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = incoming.name;
  link.textContent = "Save " + incoming.name;
  incoming.status.after(" ", link);
  if (blob.size <= HASH_LIMIT) sha256Hex(blob).then(hash => { record.sha256 = hash; }, error => log("no sha256:", error));
}

// A stalled sender cannot hold a file open for ever.
setInterval(() => {
  for (const incoming of [...exchange.incoming.values()]) {
    if (incoming.state === "receiving" && Date.now() - incoming.lastChunkAt > FILE_IDLE_LIMIT) {
      finishReceive(incoming, "failed", "failed: no data for " + FILE_IDLE_LIMIT / 1000 + " s", true);
    }
  }
}, 5000);

async function sha256Hex(blob) {
  if (!crypto.subtle) return null;   // only in a secure context (https, localhost)
  const digest = await crypto.subtle.digest("SHA-256", await blob.arrayBuffer());
  return Array.from(new Uint8Array(digest), byte => byte.toString(16).padStart(2, "0")).join("");
}

/** A peer's channel closed or the peer left: its unfinished files fail both ways. */
function endTransfersOf(peer, channel, reason) {
  if (peer.channel !== channel && channel) return;
  for (const incoming of [...exchange.incoming.values()]) {
    if (incoming.peer === peer) finishReceive(incoming, "failed", "failed: " + reason, false);
  }
  for (const out of [...exchange.outgoing.values()]) if (out.peer === peer) finishSend(out, "failed", "failed: " + reason);
}

// Sending files: offered to every open channel, streamed as the data URL to each peer that accepts.

/** Offers `blob` under `name` to every peer whose channel is open; the record shows in the hook's `filesSent`. */
function sendFile(s, blob, name, sha256 = null) {
  if (janusMode) {
    showNote("Files are shared in mesh rooms only: " + name + " not sent.");
    return null;
  }
  const peers = openPeers(s);
  if (peers.length === 0) {
    showNote("Nobody's channel is open: " + name + " not sent.");
    return null;
  }
  const record = { name, size: blob.size, sha256, to: {} };
  exchange.filesSent.push(record);
  if (exchange.filesSent.length > RECORD_LIMIT) exchange.filesSent.splice(0, exchange.filesSent.length - RECORD_LIMIT);
  const item = chatLine("self");
  const line = document.createElement("span");
  line.className = "file";
  line.append("you offer " + name + " (" + formatSize(blob.size) + ")");
  item.append(line);
  for (const peer of peers) {
    const sendId = randomSendId();
    const status = document.createElement("span");
    status.className = "progress";
    line.append(" ", status);
    const out = { key: peer.id + " " + sendId, peer, sendId, blob, name, state: "offered", record, status };
    exchange.outgoing.set(out.key, out);
    setSendState(out, "offered");
    // The original's key order: name, size, sendId, type, signal.
    if (!sendOn(peer, { name, size: blob.size, sendId, type: "__file", signal: "ask" })) finishSend(out, "failed", "failed");
  }
  return record;
}

function setSendState(out, text) {
  out.record.to[out.peer.id] = out.state;
  out.status.textContent = label(out.peer) + ": " + text;
}

function finishSend(out, state, text) {
  if (!exchange.outgoing.has(out.key)) return;
  exchange.outgoing.delete(out.key);
  out.state = state;
  setSendState(out, text);
  log("file", out.sendId, "to", short(out.peer.id) + ":", text);
}

function onFileAccept(s, peer, key) {
  const out = exchange.outgoing.get(key);
  if (!out || out.state !== "offered") return log("accept of no offered file from", short(peer.id), "dropped");
  out.state = "sending";
  setSendState(out, "0%");
  streamFile(out).catch(error => finishSend(out, "failed", "failed: " + (error.message || error.name)));
}

/** 3 bytes at a time become 4 characters: base64 of a block whose length is a multiple of 3 joins the next. */
function base64Of(bytes) {
  let text = "";
  for (let at = 0; at < bytes.length; at += 3 * 8192) {
    text += btoa(String.fromCharCode.apply(null, bytes.subarray(at, at + 3 * 8192)));
  }
  return text;
}

/** Waits until the channel's buffer falls to its low threshold (or the channel closes). */
function drained(channel) {
  return new Promise(resolve => {
    const done = () => {
      channel.removeEventListener("bufferedamountlow", done);
      channel.removeEventListener("close", done);
      resolve();
    };
    channel.addEventListener("bufferedamountlow", done);
    channel.addEventListener("close", done);
  });
}

async function streamFile(out) {
  const channel = out.peer.channel;
  const pc = out.peer.pc;
  const limit = Math.min(pc.sctp && pc.sctp.maxMessageSize ? pc.sctp.maxMessageSize : CHUNK_MESSAGE_LIMIT,
                         CHUNK_MESSAGE_LIMIT);
  const slice = Math.max(limit - CHUNK_ENVELOPE, 1000);   // characters of data URL per chunk
  const size = out.blob.size;
  let pending = "data:" + (out.blob.type || "application/octet-stream") + ";base64,";
  const total = pending.length + 4 * Math.ceil(size / 3);
  let sent = 0;
  let offset = 0;
  let shown = -1;
  for (;;) {
    if (out.state !== "sending") return;
    if (channel.readyState !== "open") return finishSend(out, "failed", "failed: the channel closed");
    while (pending.length <= slice && offset < size) {
      const block = new Uint8Array(await out.blob.slice(offset, offset + READ_BLOCK).arrayBuffer());
      offset += block.length;
      pending += base64Of(block);
      if (block.length === 0) throw new Error("the file ended early");
    }
    if (out.state !== "sending") return;
    const last = offset >= size && pending.length <= slice;
    const data = pending.slice(0, slice);
    pending = pending.slice(slice);
    sent += data.length;
    const percent = Math.floor(sent * 100 / total);
    // The original's key order: a middle chunk has `last` before `data`, the last one after it.
    const message = last
      ? { type: "__file", signal: "chunk", sendId: out.sendId, data, last: true }
      : { type: "__file", signal: "chunk", sendId: out.sendId, last: false, data, percent };
    if (!sendOn(out.peer, message)) return finishSend(out, "failed", "failed: the channel refused a chunk");
    if (last) return finishSend(out, "sent", "sent");
    if (percent !== shown) {
      shown = percent;
      setSendState(out, percent + "%");
    }
    if (channel.bufferedAmount + limit > CHANNEL_BUFFER_HIGH) await drained(channel);
  }
}

// Test and bench helpers.

/** Deterministic pseudo-random bytes (xorshift32), so a test knows what a length-only file holds. */
function syntheticBytes(length) {
  const bytes = new Uint8Array(length);
  let x = 0x9e3779b9;
  for (let i = 0; i < length; i += 1) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/**
 * window.conftuiSendFile(name, content): offers a file to every open channel, as the "Send file" button does.
 * `content` is a length (that many syntheticBytes) or a base64 string. Resolves with {name, size, sha256, to}
 * (the `filesSent` record, `to` filling in as peers answer), or null when no channel is open.
 */
async function conftuiSendFile(name, content) {
  let bytes;
  if (typeof content === "number") bytes = syntheticBytes(content);
  else {
    const binary = atob(String(content));
    bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  }
  const blob = new Blob([bytes], { type: "application/octet-stream" });
  return sendFile(session, blob, String(name), await sha256Hex(blob));
}

/**
 * window.conftuiPing(n): n round trips over each open channel, one at a time, to pages started with ?echo=1:
 * "ping <token>" out, "pong <token>" back (both ordinary `__msg` chat). Resolves with {<socketId>: [milliseconds,
 * ... ]} (a lost reply, after 5 s, counts as null).
 */
async function conftuiPing(n = 10) {
  const results = {};
  for (const peer of openPeers(session)) {
    results[peer.id] = [];
    for (let i = 0; i < n; i += 1) {
      const token = randomSendId() + " " + i;
      const started = performance.now();
      const arrived = new Promise(resolve => {
        pingWaiters.set("pong " + token, resolve);
        setTimeout(() => resolve(null), 5000);
      });
      sendChat(session, "ping " + token, [peer]);
      const at = await arrived;
      pingWaiters.delete("pong " + token);
      results[peer.id].push(at === null ? null : performance.now() - started);
    }
  }
  return results;
}

window.conftuiSendFile = conftuiSendFile;
window.conftuiPing = conftuiPing;

ui.chatForm.addEventListener("submit", event => {
  event.preventDefault();
  const text = ui.chatInput.value;
  if (text.trim() === "") return;
  if (text.length > CHAT_TEXT_LIMIT) return showNote("Too long to send: at most " + CHAT_TEXT_LIMIT + " characters.");
  const sent = sendChat(session, text);
  if (sent) ui.chatInput.value = "";
  else if (sent === false) showNote("Nobody's channel is open: not sent.");
});

ui.fileSend.addEventListener("click", () => {
  const file = ui.fileInput.files && ui.fileInput.files[0];
  if (!file) return showNote("Choose a file first.");
  if (sendFile(session, file, file.name)) ui.fileInput.value = "";
});

// ---------------------------------------------------------------------------------------------------------
// Janus mode (?janus=ws://HOST:8188/&room=1234): the page is a participant of a Janus VideoRoom (Janus 1.x,
// multistream) instead of a SkyRTC mesh peer. Its own client of Janus's WebSocket API (subprotocol
// "janus-protocol"), following the API comment at the top of Janus's src/plugins/janus_videoroom.c:
// - `create` a session, a `keepalive` every 25 s (Janus drops a silent session after 60 s, media or not);
// - `attach` janus.plugin.videoroom twice: a publisher handle and ONE subscriber handle for everybody else;
// - `join` as publisher with `display` = ?name= (426 "no such room": `create` it and join again; 427 "exists" means
//   someone else made it meanwhile); `publish` our audio and video (sendonly) with an offer; Janus answers;
// - every other publisher (the `joined` list, later `publishers` events) goes onto the subscriber handle: the first
//   by `join` ptype subscriber with `streams: [{feed}]`, later ones by `subscribe`. Every offer that comes with
//   `attached` or `updated` is answered with `start`, in order; an empty `updating` (postponed) is only counted:
//   Janus may coalesce several requests into one later offer, so nothing waits for an offer it asked for;
// - the `streams` list of the latest `attached`/`updated` is the only map from a section (mid) to a feed: Janus
//   reuses freed mids for later feeds (stats are matched by mid and by the offer's SSRCs, and a handed-over mid's
//   counters start from the handover: janusRebase);
// - `leaving`/`unpublished` remove the feed's tile (and `unsubscribe` it, which frees its sections);
// - Mute and Video use `configure` with `streams: [{mid, send}]`: Janus stops relaying that mid. Janus 1.1.2 tells
//   the others nothing about it, so a tile's "muted"/"video off" is inferred from packets that stopped arriving.
// - Chat: the publisher connection has one data channel (made before the publish offer, so it has an m=application
//   section); Janus relays what we send on it to every subscriber of our feed, and ignores what a subscriber sends.
//   Others' messages come on the subscriber connection (its `{feed}` subscriptions include each feed's data), one
//   channel per sender, which Janus opens with that sender's first message and labels with its feed id; Janus sends
//   them only after we opened a channel of our own there (janusAnswer).
//   Files stay in mesh rooms: through the SFU everybody would get every ask, accept and chunk.

const JANUS_KEEPALIVE_MS = 25 * 1000;
const JANUS_REQUEST_TIMEOUT_MS = 15 * 1000;
// The stream descriptions conftui participants say their mute and video state with (Janus re-announces a publisher
// to the others when its descriptions change; Sources/Signaling/Janus/README.md): the same four strings everywhere.
const JANUS_MEDIA_DESCRIPTIONS = { audio: ["conftui audio on", "conftui audio muted"], video: ["conftui video on", "conftui video off"] };
const JANUS_STALL_MS = 2000;       // a feed whose audio (video) packets stop this long counts as muted (video off)
const JANUS_MESSAGE_LIMIT = 65535; // bytes of one chat message: Janus 1.1.2 keeps a relayed message's length in 16 bits
const JANUS_FEED_ID = /^[1-9][0-9]{0,15}$/;   // a feed id as Janus labels a relayed channel with it
const JANUS_ERRORS = {
  426: "no such room", 427: "the room already exists", 428: "no such feed", 429: "a mandatory element is missing",
  432: "the room is full (no more publishers)", 433: "wrong or missing PIN",
};
const janusMode = params.has("janus");

function janusRoom() {
  const text = params.get("room") || roomFromFragment();
  // Janus's ids are below 2^53 (janus_random_uint64), so a JavaScript number holds them exactly; so must the room.
  return /^[1-9][0-9]{0,15}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : null;
}

function janusTransaction() {
  return Math.random().toString(36).slice(2, 12);
}

function janusJoin() {
  const room = janusRoom();
  const url = params.get("janus") || "";
  const pin = params.get("pin");
  const s = {
    room: room === null ? String(params.get("room") || roomFromFragment()) : String(room), you: "",
    signaling: "connecting", peers: new Map(), media: null, closed: false, selfTile: makeTile("you", true),
    ws: null, mediaReady: null, channels: new Map(),
    janus: {
      url, room, pin, sessionId: null, pubHandle: null, subHandle: null, feed: null, privateId: null,
      transactions: new Map(), keepalive: null, subState: "none", subscribed: new Set(), pendingFeeds: [],
      names: new Map(), midToFeed: new Map(), streams: [], pubPc: null, subPc: null, offers: Promise.resolve(),
      offersAnswered: 0, postponed: 0, audioMid: null, videoMid: null, createdRoom: false, error: null,
      events: [], samples: [], sampler: null, bases: new Map(), channel: null, subChannel: null,
    },
  };
  startSession(s);
  s.mediaReady = openMedia().then(media => {
    if (s.closed) { media.stop(); return media; }
    s.media = media;
    media.setName(ownName || "you");
    s.selfTile.show(media.stream);
    showLocalState(s);
    ui.mute.disabled = !media.audioTrack;
    ui.video.disabled = !media.videoTrack;
    updateStatus();
    return media;
  });
  if (!/^wss?:\/\/[^/]/.test(url)) return janusFail(s, null, "?janus= must be a ws:// or wss:// URL of Janus's WebSocket transport");
  if (room === null) return janusFail(s, null, "?room= must be a Janus room number (1 to 9007199254740991)");
  log("connecting to Janus", url, "room", room);
  let ws;
  try {
    ws = new WebSocket(url, "janus-protocol");
  } catch (error) {
    return janusFail(s, null, "cannot open " + url + ": " + error.message);
  }
  s.ws = ws;
  ws.onopen = () => {
    if (session !== s) return;
    log("Janus connected (" + (ws.protocol || "no subprotocol") + ")");
    janusConverse(s).catch(error => janusFail(s, error.code || null, error.message || String(error)));
  };
  ws.onmessage = event => {
    if (session !== s || typeof event.data !== "string") return;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      return log("unreadable Janus message:", error);
    }
    if (message && typeof message === "object") janusReceive(s, message);
  };
  ws.onerror = () => log("Janus socket error");
  ws.onclose = event => {
    if (session !== s || s.closed) return;
    const reason = s.signaling === "connecting" && !s.janus.sessionId
      ? "could not connect to Janus at " + url + " (code " + event.code + ")"
      : "disconnected from Janus (code " + event.code + ")";
    janusFail(s, null, reason, "disconnected");
  };
  updateStatus();
}

/** A Janus error: shown in the page (#error), the log and the state (`janus.error`), and the room is left. */
function janusFail(s, code, text, signaling = "failed") {
  if (s.closed) return;
  const known = code != null && JANUS_ERRORS[code] ? " (" + JANUS_ERRORS[code] + ")" : "";
  const message = "Janus" + (code != null ? " error " + code : "") + ": " + text + known;
  s.janus.error = { code: code == null ? null : Number(code), text: message };
  ui.error.textContent = message;
  log(message);
  janusEnd(s, signaling, message);
}

function janusSend(s, body, handle = null) {
  const transaction = janusTransaction();
  const message = { ...body, transaction };
  if (s.janus.sessionId !== null && body.janus !== "create") message.session_id = s.janus.sessionId;
  if (handle !== null) message.handle_id = handle;
  if (!s.ws || s.ws.readyState !== WebSocket.OPEN) throw new Error("the Janus socket is not open");
  s.ws.send(JSON.stringify(message));
  if (body.janus !== "keepalive" && body.janus !== "trickle") log("-> Janus", janusBrief(message));
  return transaction;
}

/** Sends a request and resolves with its answer: `success`, or the plugin's `event` after Janus's `ack`. */
function janusRequest(s, body, handle = null) {
  return new Promise((resolve, reject) => {
    let transaction;
    try {
      transaction = janusSend(s, body, handle);
    } catch (error) {
      return reject(error);
    }
    const timer = setTimeout(() => {
      s.janus.transactions.delete(transaction);
      reject(new Error("no answer from Janus to " + (body.body ? body.body.request : body.janus) + " within 15 s"));
    }, JANUS_REQUEST_TIMEOUT_MS);
    s.janus.transactions.set(transaction, { resolve: message => { clearTimeout(timer); resolve(message); },
                                            ack: body.janus === "keepalive" });
  });
}

function janusMessage(s, handle, request, jsep = null) {
  const body = { janus: "message", body: request };
  if (jsep) body.jsep = { type: jsep.type, sdp: jsep.sdp };
  return janusRequest(s, body, handle);
}

const pluginData = message => (message.plugindata && message.plugindata.data) || {};

/** A log line's view of a Janus message: without the SDP. */
function janusBrief(message) {
  return JSON.stringify(message, (key, value) => (key === "sdp" ? "(" + String(value).length + " bytes of SDP)" : value));
}

class JanusError extends Error {
  constructor(code, text) {
    super(text);
    this.code = code;
  }
}

function janusCheck(what, data) {
  if (data.error_code != null || data.error != null) throw new JanusError(data.error_code, what + ": " + String(data.error || ""));
  return data;
}

async function janusConverse(s) {
  const j = s.janus;
  const created = await janusRequest(s, { janus: "create" });
  if (created.janus !== "success") throw new JanusError(null, "create session: " + janusBrief(created.error || created));
  j.sessionId = created.data.id;
  j.keepalive = setInterval(() => {
    janusRequest(s, { janus: "keepalive" }).catch(error => log("keepalive:", error));
  }, JANUS_KEEPALIVE_MS);
  for (const role of ["pubHandle", "subHandle"]) {
    const attached = await janusRequest(s, { janus: "attach", plugin: "janus.plugin.videoroom" });
    if (attached.janus !== "success") throw new JanusError(null, "attach the VideoRoom: " + janusBrief(attached.error || attached));
    j[role] = attached.data.id;
  }
  const joinBody = { request: "join", ptype: "publisher", room: j.room };
  if (ownName) joinBody.display = ownName;
  if (j.pin) joinBody.pin = j.pin;
  let joined = pluginData(await janusMessage(s, j.pubHandle, joinBody));
  if (joined.error_code === 426) {
    log("room", j.room, "does not exist: creating it");
    const create = { request: "create", room: j.room, publishers: 16, bitrate: 512000, fir_freq: 10,
                     audiocodec: "opus", videocodec: "vp8", audiolevel_event: true };
    if (j.pin) create.pin = j.pin;
    const made = pluginData(await janusMessage(s, j.pubHandle, create));
    if (made.videoroom === "created") j.createdRoom = true;
    else if (made.error_code !== 427) {
      throw new JanusError(made.error_code, "room " + j.room + " does not exist and could not be created: " + String(made.error || ""));
    }
    joined = pluginData(await janusMessage(s, j.pubHandle, joinBody));
  }
  janusCheck("join room " + j.room, joined);
  if (joined.videoroom !== "joined") throw new JanusError(null, "join room " + j.room + ": " + janusBrief(joined));
  j.feed = joined.id;
  j.privateId = joined.private_id == null ? null : joined.private_id;
  s.you = String(joined.id);
  s.signaling = "joined";
  log("joined Janus room", j.room, "as feed", s.you + (ownName ? " (" + ownName + ")" : ""), "with",
      (joined.publishers || []).length, "publisher(s)");
  s.selfTile.setName("you · " + (ownName || s.you));
  if (s.media) s.media.setName(ownName || s.you);
  updateStatus();
  janusWant(s, Array.isArray(joined.publishers) ? joined.publishers : []);
  j.sampler = setInterval(() => janusSample(s), 1000);
  await janusPublish(s);
}

async function janusPublish(s) {
  const j = s.janus;
  const media = await s.mediaReady;
  if (s.closed) return;
  const pc = new RTCPeerConnection({ ...rtcConfiguration, bundlePolicy: "max-bundle" });
  j.pubPc = pc;
  pc.onicecandidate = event => janusTrickle(s, j.pubHandle, event.candidate);
  pc.onconnectionstatechange = () => { log("publisher connection", pc.connectionState); updateStatus(); };
  const audio = pc.addTransceiver(media.audioTrack || "audio", { direction: "sendonly", streams: [media.stream] });
  const video = pc.addTransceiver(media.videoTrack || "video", { direction: "sendonly", streams: [media.stream] });
  janusOpenChatChannel(s, pc);
  await pc.setLocalDescription(await pc.createOffer());
  j.audioMid = audio.mid;
  j.videoMid = video.mid;
  const request = { request: "publish" };
  if (ownName) request.display = ownName;
  const answer = await janusMessage(s, j.pubHandle, request, pc.localDescription);
  const data = janusCheck("publish", pluginData(answer));
  if (data.configured !== "ok" || !answer.jsep) throw new JanusError(null, "publish: " + janusBrief(data));
  await pc.setRemoteDescription(answer.jsep);
  log("publishing", (data.audio_codec || "no audio") + " + " + (data.video_codec || "no video"));
  // What was switched off before publishing stays off.
  if ((media.audioTrack && !media.audioTrack.enabled) || (media.videoTrack && !media.videoTrack.enabled)) janusConfigureMedia(s);
}

function janusTrickle(s, handle, candidate) {
  if (s.closed || handle === null) return;
  const body = candidate && candidate.candidate
    ? { janus: "trickle", candidate: { candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex } }
    : { janus: "trickle", candidate: { completed: true } };
  try {
    janusSend(s, body, handle);
  } catch (error) {
    log("trickle:", error);
  }
}

/** Mute and Video: Janus relays our audio (video) mid only while its `send` is true. */
function janusConfigureMedia(s) {
  const j = s.janus;
  if (s.closed || !s.media || !j.pubPc || j.audioMid === null) return;
  const streams = [];
  const descriptions = [];
  if (s.media.audioTrack) {
    streams.push({ mid: j.audioMid, send: s.media.audioTrack.enabled });
    descriptions.push({ mid: j.audioMid, description: JANUS_MEDIA_DESCRIPTIONS.audio[s.media.audioTrack.enabled ? 0 : 1] });
  }
  if (s.media.videoTrack) {
    streams.push({ mid: j.videoMid, send: s.media.videoTrack.enabled });
    descriptions.push({ mid: j.videoMid, description: JANUS_MEDIA_DESCRIPTIONS.video[s.media.videoTrack.enabled ? 0 : 1] });
  }
  janusMessage(s, j.pubHandle, { request: "configure", streams, descriptions }).then(answer => {
    const data = pluginData(answer);
    if (data.error_code != null) log("configure refused:", data.error_code, String(data.error || ""));
  }, error => log("configure:", error));
}

function janusReceive(s, message) {
  const j = s.janus;
  const kind = message.janus;
  const waiting = message.transaction != null ? j.transactions.get(message.transaction) : undefined;
  if (kind !== "ack" || !waiting) {
    if (!(kind === "ack" || (kind === "event" && pluginData(message).videoroom === "talking"))) log("<- Janus", janusBrief(message));
  }
  if (waiting && (kind !== "ack" || waiting.ack)) {
    j.transactions.delete(message.transaction);
    waiting.resolve(message);
  }
  if (kind === "timeout" || kind === "detached") {
    return janusFail(s, null, kind === "timeout" ? "the session timed out" : "a handle was detached", "disconnected");
  }
  if (kind === "hangup" || kind === "webrtcup" || kind === "media" || kind === "slowlink") {
    const role = message.sender === j.pubHandle ? "publisher" : "subscriber";
    j.events = j.events.slice(-19).concat(role + " " + kind + (message.type ? " " + message.type : "")
      + (message.receiving != null ? " receiving " + message.receiving : "") + (message.reason ? " " + message.reason : ""));
    return;
  }
  if (kind !== "event") return;
  // Every plugin event goes through one queue, so offers are answered in the order they came.
  j.offers = j.offers.then(() => (s.closed ? undefined : janusEvent(s, message))).catch(error => {
    log("handling a Janus event failed:", error);
  });
}

async function janusEvent(s, message) {
  const j = s.janus;
  const data = pluginData(message);
  const event = data.videoroom;
  if (message.sender === j.subHandle) {
    if (event === "attached" || event === "updated") {
      if (Array.isArray(data.streams)) {
        j.streams = data.streams;
        // The one data section carries every feed's channels: it belongs to no tile.
        const map = new Map(data.streams
          .filter(st => st && st.feed_id != null && st.active !== false && st.type !== "data")
          .map(st => [String(st.mid), String(st.feed_id)]));
        const moved = [...map].filter(([mid, feed]) => j.midToFeed.has(mid) && j.midToFeed.get(mid) !== feed);
        // Before answering (Janus sends the new feed on a mid only after `start`).
        if (moved.length) await janusRebase(s, moved);
        j.midToFeed = map;
      }
      if (message.jsep && message.jsep.type === "offer") await janusAnswer(s, message.jsep);
      else janusReconcile(s);
      if (event === "attached") {
        j.subState = "joined";
        const feeds = j.pendingFeeds.splice(0).filter(feed => s.peers.has(feed) && !j.subscribed.has(feed));
        if (feeds.length) janusSubscribe(s, feeds);
      }
    } else if (event === "updating") {
      j.postponed += 1;
    } else if (data.error_code != null) {
      log("subscriber:", data.error_code, String(data.error || ""));
      if (j.subState === "joining") {
        // The join failed (e.g. 428: a feed went meanwhile): join again with the feeds still there.
        j.subState = "none";
        j.subscribed.clear();
        j.pendingFeeds = [];
        janusWant(s, [...s.peers.values()].map(peer => ({ id: Number(peer.id), display: peer.name })));
      }
    }
    return;
  }
  if (message.sender !== j.pubHandle) return;
  if (data.error_code != null && !message.transaction) log("publisher:", data.error_code, String(data.error || ""));
  if (Array.isArray(data.publishers) && event !== "joined") janusWant(s, data.publishers);
  if (event === "event" && data.id != null && data.display != null && data.publishers == null && data.leaving == null) {
    const feed = String(data.id);   // a (new) display name
    j.names.set(feed, displayName(data.display));
    const peer = s.peers.get(feed);
    if (peer) janusRename(peer, displayName(data.display));
  }
  for (const key of ["leaving", "unpublished", "kicked"]) {
    const feed = data[key];
    if (typeof feed === "number" && feed !== j.feed) janusGone(s, String(feed), key);
  }
  if ((event === "talking" || event === "stopped-talking") && s.peers.has(String(data.id))) {
    s.peers.get(String(data.id)).talking = event === "talking";
  }
}

function janusRename(peer, name) {
  if (name === peer.name) return;
  peer.name = name;
  peer.tile.setName(tileTitle(peer));
}

/** Publishers in `list` (objects with id, display, streams) get a tile and a place on the subscriber handle. */
function janusWant(s, list) {
  const j = s.janus;
  const fresh = [];
  for (const publisher of list) {
    if (!publisher || typeof publisher.id !== "number" || publisher.id === j.feed) continue;
    const feed = String(publisher.id);
    const name = displayName(publisher.display) || j.names.get(feed) || null;
    if (name) j.names.set(feed, name);   // still there for a message that arrives after its sender left
    let peer = s.peers.get(feed);
    if (peer) {
      janusRename(peer, name);
    } else {
      peer = { id: feed, name, role: "subscriber", media: null, stream: new MediaStream(), tile: null,
               channel: s.channels.get(feed) || null, closed: false, talking: null, mids: [],
               seen: { audio: 0, video: 0, audioAt: 0, videoAt: 0 } };
      peer.tile = makeTile(label(peer), false);
      peer.tile.setState("subscribing");
      s.peers.set(feed, peer);
      log("publisher", feed, name ? "(" + name + ")" : "", "is in the room");
    }
    janusAnnounced(peer, publisher.streams);
    if (!j.subscribed.has(feed) && !j.pendingFeeds.includes(feed)) fresh.push(feed);
  }
  updateStatus();
  if (fresh.length === 0) return;
  if (j.subState === "none") {
    j.subState = "joining";
    for (const feed of fresh) j.subscribed.add(feed);
    const body = { request: "join", ptype: "subscriber", room: j.room, streams: fresh.map(feed => ({ feed: Number(feed) })) };
    if (j.privateId !== null) body.private_id = j.privateId;
    if (j.pin) body.pin = j.pin;
    janusMessage(s, j.subHandle, body).catch(error => log("subscriber join:", error));
  } else if (j.subState === "joining") {
    j.pendingFeeds.push(...fresh);
  } else {
    janusSubscribe(s, fresh);
  }
}

function janusSubscribe(s, feeds) {
  for (const feed of feeds) s.janus.subscribed.add(feed);
  janusMessage(s, s.janus.subHandle, { request: "subscribe", streams: feeds.map(feed => ({ feed: Number(feed) })) })
    .catch(error => log("subscribe:", error));
}

function janusGone(s, feed, why) {
  const j = s.janus;
  const peer = s.peers.get(feed);
  j.pendingFeeds = j.pendingFeeds.filter(f => f !== feed);
  if (j.subscribed.delete(feed) && j.subState === "joined") {
    // After a clean `leave` Janus may send no `updated`: unsubscribing frees the feed's sections.
    janusMessage(s, j.subHandle, { request: "unsubscribe", streams: [{ feed: Number(feed) }] }).catch(error => log("unsubscribe:", error));
  }
  if (!peer) return;
  log("publisher", feed, peer.name ? "(" + peer.name + ")" : "", why === "leaving" ? "left" : why);
  peer.closed = true;
  peer.tile.remove();
  s.peers.delete(feed);
  updateStatus();
}

async function janusAnswer(s, offer) {
  const j = s.janus;
  if (!j.subPc) {
    const pc = new RTCPeerConnection({ ...rtcConfiguration, bundlePolicy: "max-bundle" });
    j.subPc = pc;
    pc.onicecandidate = event => janusTrickle(s, j.subHandle, event.candidate);
    pc.ontrack = () => janusReconcile(s);
    pc.ondatachannel = event => janusAttachChannel(s, event.channel);
    pc.onconnectionstatechange = () => {
      log("subscriber connection", pc.connectionState);
      for (const peer of s.peers.values()) peer.tile.setState(pc.connectionState);
      updateStatus();
    };
    pc.oniceconnectionstatechange = () => log("subscriber ice", pc.iceConnectionState);
  }
  await j.subPc.setRemoteDescription({ type: "offer", sdp: offer.sdp });
  // Janus relays others' messages to a subscription only once its data is "ready", which it learns from a channel
  // the subscriber opens: one of ours, that Janus takes and never reads. Only for an offered data section (we never
  // offer on this connection), and again if a later offer rejected it and brought it back.
  const offersData = /\r?\nm=application [1-9]/.test("\n" + offer.sdp);
  if (offersData && (!j.subChannel || j.subChannel.readyState === "closed" || j.subChannel.readyState === "closing")) {
    j.subChannel = j.subPc.createDataChannel(SKYRTC_CHANNEL_LABEL, { ordered: true });
    j.subChannel.onopen = () => log("subscriber channel to Janus open: relayed chat can arrive");
    j.subChannel.onclose = () => log("subscriber channel to Janus closed");
  }
  await j.subPc.setLocalDescription(await j.subPc.createAnswer());
  janusMessage(s, j.subHandle, { request: "start" }, j.subPc.localDescription).then(answer => {
    const data = pluginData(answer);
    if (data.error_code != null) log("start refused:", data.error_code, String(data.error || ""));
  }, error => log("start:", error));
  j.offersAnswered += 1;
  janusReconcile(s);
}

/** Each feed's tile plays exactly the tracks of the sections the latest `streams` list gives it. */
function janusReconcile(s) {
  const j = s.janus;
  if (!j.subPc) return;
  const wanted = new Map([...s.peers.keys()].map(feed => [feed, []]));
  for (const transceiver of j.subPc.getTransceivers()) {
    const feed = transceiver.mid == null ? undefined : j.midToFeed.get(String(transceiver.mid));
    if (feed !== undefined && wanted.has(feed) && !transceiver.stopped) wanted.get(feed).push(transceiver);
  }
  for (const [feed, transceivers] of wanted) {
    const peer = s.peers.get(feed);
    const tracks = transceivers.map(t => t.receiver.track);
    peer.mids = transceivers.map(t => String(t.mid));
    for (const track of peer.stream.getTracks()) if (!tracks.includes(track)) peer.stream.removeTrack(track);
    for (const track of tracks) if (!peer.stream.getTracks().includes(track)) peer.stream.addTrack(track);
    if (tracks.length) {
      peer.tile.show(peer.stream);
      if (j.subPc.connectionState === "connected") peer.tile.setState("connected");
    }
  }
}

const JANUS_COUNTERS = ["packetsReceived", "bytesReceived", "framesDecoded", "freezeCount", "totalAudioEnergy"];

/**
 * Janus reuses a freed mid for a later feed, and when no offer made the section inactive in between, it keeps that
 * section's SSRC: the receiver's counters go on from the previous feed's. What they held when the mid changed hands
 * is the new feed's zero.
 */
async function janusRebase(s, moved) {
  const j = s.janus;
  if (!j.subPc) return;
  const report = await j.subPc.getStats();
  for (const [mid, feed] of moved) {
    j.bases.delete(mid);
    report.forEach(stat => {
      if (stat.type !== "inbound-rtp" || String(stat.mid) !== mid) return;
      const base = { feed, ssrc: stat.ssrc };
      for (const key of JANUS_COUNTERS) base[key] = stat[key] || 0;
      j.bases.set(mid, base);
      log("mid", mid, "now carries feed", feed + "; its receiver's counters so far (ssrc " + stat.ssrc + ", "
          + base.packetsReceived + " packets) were the previous feed's");
    });
  }
}

function janusSince(stat, base) {
  const result = { ...stat };
  for (const key of JANUS_COUNTERS) result[key] = Math.max(0, (stat[key] || 0) - base[key]);
  return result;
}

/** {mid: Set of SSRCs} of the sections of an SDP. */
function ssrcsByMid(sdp) {
  const result = new Map();
  for (const section of String(sdp || "").split(/\r?\nm=/).slice(1)) {
    const mid = /\r?\na=mid:(\S+)/.exec(section);
    if (!mid) continue;
    const ssrcs = new Set();
    for (const match of section.matchAll(/\r?\na=ssrc:(\d+)/g)) ssrcs.add(Number(match[1]));
    result.set(mid[1], ssrcs);
  }
  return result;
}

/** Per feed: the inbound-rtp figures of its sections now (by the mid map and the offer's SSRCs), and the pair. */
async function janusStats(s) {
  const j = s.janus;
  const out = new Map();
  for (const feed of s.peers.keys()) {
    out.set(feed, { framesDecoded: 0, frameWidth: 0, frameHeight: 0, packetsReceived: 0, audioPacketsReceived: 0,
                    videoPacketsReceived: 0, audioLevel: 0, totalAudioEnergy: 0, bytesReceived: 0, freezeCount: 0 });
  }
  const result = { feeds: out, selectedPair: null, selectedPairTypes: null };
  if (!j.subPc) return result;
  const ssrcs = ssrcsByMid(j.subPc.remoteDescription && j.subPc.remoteDescription.sdp);
  const report = await j.subPc.getStats();
  const byId = new Map();
  report.forEach(stat => byId.set(stat.id, stat));
  for (let stat of byId.values()) {
    if (stat.type === "inbound-rtp") {
      const feed = stat.mid == null ? undefined : j.midToFeed.get(String(stat.mid));
      const known = ssrcs.get(String(stat.mid));
      if (feed === undefined || !out.has(feed) || (known && known.size && !known.has(stat.ssrc))) continue;
      const summary = out.get(feed);
      const base = j.bases.get(String(stat.mid));
      if (base && base.feed === feed && base.ssrc === stat.ssrc) stat = janusSince(stat, base);
      summary.packetsReceived += stat.packetsReceived || 0;
      summary.bytesReceived += stat.bytesReceived || 0;
      if (stat.kind === "video") {
        summary.videoPacketsReceived += stat.packetsReceived || 0;
        summary.framesDecoded += stat.framesDecoded || 0;
        summary.freezeCount += stat.freezeCount || 0;
        if (stat.frameWidth) { summary.frameWidth = stat.frameWidth; summary.frameHeight = stat.frameHeight; }
      } else if (stat.kind === "audio") {
        summary.audioPacketsReceived += stat.packetsReceived || 0;
        if (typeof stat.audioLevel === "number") summary.audioLevel = Math.max(summary.audioLevel, stat.audioLevel);
        summary.totalAudioEnergy += stat.totalAudioEnergy || 0;
      }
    } else if (stat.type === "transport" && stat.selectedCandidatePairId) {
      const pair = byId.get(stat.selectedCandidatePairId);
      const local = pair && byId.get(pair.localCandidateId);
      const remote = pair && byId.get(pair.remoteCandidateId);
      if (local && remote) {
        result.selectedPair = local.address + ":" + local.port + " -> " + remote.address + ":" + remote.port;
        result.selectedPairTypes = local.candidateType + "/" + remote.candidateType;
      }
    }
  }
  return result;
}

/**
 * Once a second: each feed's frames decoded (for `fps`), and what its publisher switched off, as far as the packets
 * tell (Janus 1.1.2 sends no event for a `configure` with `send: false`): audio (video) packets that arrived once and
 * then stopped for JANUS_STALL_MS mean muted (video off).
 */
async function janusSample(s) {
  if (s.closed) return;
  const stats = await janusStats(s);
  const now = performance.now();
  const j = s.janus;
  j.samples.push({ at: now, frames: new Map([...stats.feeds].map(([feed, st]) => [feed, st.framesDecoded])) });
  while (j.samples.length > 10) j.samples.shift();
  for (const [feed, st] of stats.feeds) {
    const peer = s.peers.get(feed);
    if (!peer) continue;
    const seen = peer.seen;
    if (st.audioPacketsReceived > seen.audio) { seen.audio = st.audioPacketsReceived; seen.audioAt = now; }
    if (st.videoPacketsReceived > seen.video) { seen.video = st.videoPacketsReceived; seen.videoAt = now; }
    // What the publisher said wins; for a publisher that says nothing (a browser with another client), the packets.
    const said = peer.announced || {};
    const media = {
      audioMuted: said.audioMuted ?? (seen.audioAt > 0 && now - seen.audioAt > JANUS_STALL_MS),
      videoOn: said.videoOn ?? !(seen.videoAt > 0 && now - seen.videoAt > JANUS_STALL_MS),
    };
    if (!peer.media || peer.media.audioMuted !== media.audioMuted || peer.media.videoOn !== media.videoOn) {
      if (peer.media) log("publisher", feed, media.audioMuted ? "sends no audio" : "sends audio", "·", media.videoOn ? "sends video" : "sends no video");
      setPeerMedia(peer, media);
    }
  }
}

/** A publisher's own word on its mute and video state, from its streams' descriptions (conftui's convention above);
 * a stream without one of the four strings says nothing. */
function janusAnnounced(peer, streams) {
  if (!Array.isArray(streams)) return;
  for (const stream of streams) {
    if (!stream || typeof stream.description !== "string") continue;
    const words = JANUS_MEDIA_DESCRIPTIONS[stream.type];
    const index = words ? words.indexOf(stream.description) : -1;
    if (index < 0) continue;
    peer.announced = peer.announced || {};
    if (stream.type === "audio") peer.announced.audioMuted = index === 1;
    else peer.announced.videoOn = index === 0;
  }
}

/** Frames per second of `feed` over the samples of the last 3 s, ending with `frames` now. */
function janusFps(s, feed, frames) {
  const now = performance.now();
  const old = s.janus.samples.find(sample => now - sample.at <= 3500 && sample.frames.has(feed));
  if (!old || now - old.at < 900) return 0;
  return Math.round((frames - old.frames.get(feed)) * 100000 / (now - old.at)) / 100;
}

async function janusPeersSummary(s) {
  const j = s.janus;
  const stats = await janusStats(s);
  const pc = j.subPc;
  const peers = {};
  for (const [feed, peer] of s.peers) {
    const st = stats.feeds.get(feed) || {};
    peers[feed] = {
      name: peer.name, display: peer.name, label: label(peer), media: peer.media, role: "subscriber",
      connectionState: pc ? pc.connectionState : "new", iceConnectionState: pc ? pc.iceConnectionState : "new",
      signalingState: pc ? pc.signalingState : "stable", ...st, fps: janusFps(s, feed, st.framesDecoded || 0),
      selectedPair: stats.selectedPair, selectedPairTypes: stats.selectedPairTypes, bytesSent: 0,
      availableOutgoingBitrate: null, talking: peer.talking, mids: peer.mids.slice(),
    };
  }
  return peers;
}

/** The state's `janus` part: the conversation as the page sees it. */
async function janusSummary(s) {
  const j = s.janus;
  const sent = { bytesSent: 0, framesEncoded: 0, packetsSent: 0 };
  if (j.pubPc) {
    (await j.pubPc.getStats()).forEach(stat => {
      if (stat.type !== "outbound-rtp") return;
      sent.bytesSent += stat.bytesSent || 0;
      sent.packetsSent += stat.packetsSent || 0;
      sent.framesEncoded += stat.framesEncoded || 0;
    });
  }
  return {
    url: j.url, room: j.room, feed: j.feed, privateId: j.privateId, sessionId: j.sessionId, createdRoom: j.createdRoom,
    publisherConnection: j.pubPc ? j.pubPc.connectionState : null,
    subscriberConnection: j.subPc ? j.subPc.connectionState : null, subscription: j.subState,
    subscribed: [...j.subscribed], streams: j.streams, offersAnswered: j.offersAnswered, postponed: j.postponed,
    mids: { audio: j.audioMid, video: j.videoMid }, sent, coreEvents: j.events.slice(),
    channel: j.channel ? j.channel.readyState : null, subscriberChannel: j.subChannel ? j.subChannel.readyState : null,
    error: j.error,
  };
}

/** Our chat channel: on the publisher connection, before its offer. Janus sends nothing on it. */
function janusOpenChatChannel(s, pc) {
  const channel = pc.createDataChannel(SKYRTC_CHANNEL_LABEL, { ordered: true });
  s.janus.channel = channel;
  channel.onopen = () => { log("chat channel to Janus open"); updateChatControls(); };
  channel.onclose = () => { log("chat channel to Janus closed"); updateChatControls(); };
  channel.onerror = event => log("chat channel to Janus: error", event.error || "unknown");
}

/** A channel Janus opened on the subscriber connection: one sender's messages, its label that sender's feed id. */
function janusAttachChannel(s, channel) {
  const feed = channel.label;
  if (!JANUS_FEED_ID.test(feed)) {
    // Rooms with string ids (which this page does not join) would label channels with anything: not shown as a name.
    log("a relayed channel labelled", JSON.stringify(feed.slice(0, 40)), "is no feed id; its messages are dropped");
    channel.onmessage = null;
    return;
  }
  s.channels.set(feed, channel);
  const peer = s.peers.get(feed);
  if (peer) peer.channel = channel;
  channel.binaryType = "arraybuffer";
  channel.onopen = () => { log("feed", feed, "chat channel open"); updateChatControls(); };
  channel.onclose = () => { log("feed", feed, "chat channel closed"); updateChatControls(); };
  channel.onerror = event => log("feed", feed, "chat channel: error", event.error || "unknown");
  channel.onmessage = event => {
    if (s.closed) return;
    // The sender may have left since (its name is kept), or be announced only after its first message.
    const sender = s.peers.get(feed) || { id: feed, name: s.janus.names.get(feed) || null, channel };
    onChannelMessage(s, sender, event.data);
  };
}

/**
 * Sends `text` as `__msg` once, on our publisher channel: Janus relays it to everybody subscribed to us. True when
 * sent, false when the channel is not open or nobody is in the room, null when it is too long for Janus (said so).
 */
function janusSendChat(s, text) {
  const channel = s.janus.channel;
  if (s.closed || !channel || channel.readyState !== "open" || s.peers.size === 0) return false;
  const message = JSON.stringify({ type: "__msg", data: text });
  if (new TextEncoder().encode(message).length > JANUS_MESSAGE_LIMIT) {
    showNote("Too long for Janus to relay: at most " + JANUS_MESSAGE_LIMIT + " bytes.");
    return null;
  }
  try {
    channel.send(message);
  } catch (error) {
    log("sending chat to Janus failed:", error);
    return false;
  }
  exchange.chatSent.push({ to: [...s.peers.keys()], text, atMs: Date.now() });
  if (exchange.chatSent.length > RECORD_LIMIT) exchange.chatSent.splice(0, exchange.chatSent.length - RECORD_LIMIT);
  showChat("you", text, true);
  return true;
}

function janusChatControls(s) {
  const live = s && !s.closed;
  const open = !!(live && s.janus.channel && s.janus.channel.readyState === "open");
  ui.chatSend.disabled = !open || s.peers.size === 0;
  ui.fileSend.disabled = ui.fileInput.disabled = true;
  const chat = !live ? "Not in a room. " : !open ? "The chat channel to Janus is not open yet. "
    : s.peers.size === 0 ? "Nobody to chat with. " : "";
  ui.chatNote.textContent = chat + "Files are shared in mesh rooms only.";
}

/** Leaves the room (`leave`, then `destroy` the session) and closes everything. */
function janusEnd(s, signaling, reason) {
  if (s.closed) return;
  const j = s.janus;
  if (s.ws && s.ws.readyState === WebSocket.OPEN && j.sessionId !== null) {
    try {
      if (j.pubHandle !== null && j.feed !== null) janusSend(s, { janus: "message", body: { request: "leave" } }, j.pubHandle);
      janusSend(s, { janus: "destroy" });
    } catch (error) {
      log("leaving:", error);
    }
  }
  s.closed = true;
  s.signaling = signaling;
  clearInterval(j.keepalive);
  clearInterval(j.sampler);
  for (const peer of [...s.peers.values()]) { peer.closed = true; peer.tile.remove(); }
  s.peers.clear();
  for (const pc of [j.pubPc, j.subPc]) if (pc) pc.close();
  if (s.ws && (s.ws.readyState === WebSocket.CONNECTING || s.ws.readyState === WebSocket.OPEN)) s.ws.close();
  s.mediaReady.then(media => media.stop());
  s.selfTile.remove();
  ui.mute.disabled = ui.video.disabled = true;
  ui.mute.hidden = ui.video.hidden = ui.leave.hidden = true;
  ui.rejoin.hidden = false;
  ui.notice.textContent = reason;
  log(reason);
  updateStatus();
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
    mode: janusMode ? "janus" : "skyrtc",
    you: null, room: null, name: ownName, media: null, mediaDescription: null, signaling: "none", peers: {},
    chat: exchange.chat.slice(), chatSent: exchange.chatSent.slice(), files: exchange.files.map(f => ({ ...f })),
    fileTimes: exchange.fileTimes.map(f => ({ ...f })),
    filesSent: exchange.filesSent.map(f => ({ ...f, to: { ...f.to } })), channels: {},
  };
  if (!s) return state;
  for (const [id, channel] of s.channels) state.channels[id] = channel.readyState;
  Object.assign(state, {
    you: s.you || null, room: s.room, signaling: s.signaling,
    media: s.media ? s.media.kind : null, mediaDescription: s.media ? s.media.description : null,
  });
  if (s.janus) {
    state.peers = await janusPeersSummary(s);
    state.janus = await janusSummary(s);
    return state;
  }
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
