// The layers below the call, re-exported: a module that imports Engine (ConfTUI, Bench, ConfTUIFuzz) sees their
// API as it did when Engine was one target, without naming the layers. Within Engine's own targets each file imports
// the layers it uses, and Package.swift lets each layer depend only on those below it.
@_exported import EngineMedia
@_exported import EngineRTP
@_exported import EngineTransport
