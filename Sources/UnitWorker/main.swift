// waihost-unit-worker: the process every backend plugin runs in (docs/probe.md §3). It is
// started by the host library with a fixed argv and its channel on fd 3; nothing here is
// meant to be run by hand.
import WaiHost
#if canImport(Glibc)
import Glibc
#endif

exit(UnitWorkerServer.main())
