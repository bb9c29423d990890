"""Chapter A6's tests: its pages, figures, exercises, labs and evolution map (a package, so their
module names never collide with tests/)."""
