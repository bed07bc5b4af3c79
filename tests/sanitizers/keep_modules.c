// Sanitizer runs only (jobs/sanitize.sh preloads it): dlclose keeps every library mapped, so
// that a leak report can name the Open MPI components unloaded at MPI_Finalize (otherwise
// "<unknown module>") and lsan.supp can suppress them by name.
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
