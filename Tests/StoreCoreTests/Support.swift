// The store's tests use the shared helpers in TestSupport.
@_exported import TestSupport
