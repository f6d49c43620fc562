"""One blueprint per area of the site; each view builds a payload and hands it to `respond`."""
