// The engine, for every file of this module (its few public declarations are part of the
// module's API: `import Vow` re-exports them).
@_exported import VowEngine
