"""Loading: prompt data from folders and plugins, layered into one frozen registry."""
