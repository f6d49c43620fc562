"""What the tests, the benchmarks and the replicas (deploy/) share to run the service: the
server harness (`harness.server`). Neither the library nor the web app imports it, and it
imports neither the tests nor the benchmarks."""
