{
  "targets": [
    {
      "target_name": "logsearch_mmap",
      "sources": ["mmap.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
