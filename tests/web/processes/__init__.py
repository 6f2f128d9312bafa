"""Tests of the service as real processes: cluster, proxy, deploy, start, restarts, faults."""
