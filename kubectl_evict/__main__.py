from kubectl_evict.cli import main

if __name__ == "__main__":
    main()
