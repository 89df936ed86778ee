"""Web previews: pages bound with their dependencies, served by capability URL."""
