"""Running the service beyond one process: nginx in front of app replicas."""
