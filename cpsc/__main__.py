from cpsc.cli.main import entry

entry()
