import BackendABI
