from cpsc.cli.main import main

raise SystemExit(main())
