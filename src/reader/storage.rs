//! Where a table's bytes live: the [`Storage`] trait, a file read with
//! positioned reads ([`FileStorage`]), and the checks that a path is a
//! regular, non-empty file before anything opens or maps it.

use crate::error::{Error, Result};

use std::fs::{File, FileType};
use std::io;
use std::path::Path;

/// The bytes of a tablebase, read by offset.
///
/// Anything that is `AsRef<[u8]>` (`Vec<u8>`, `&[u8]`, `memmap2::Mmap`) is a
/// storage held in memory; [`FileStorage`] reads an open file.
pub trait Storage {
    /// The size in bytes now (for a file, as the file system reports it now,
    /// which is how [`RawTable::verify`](crate::raw::RawTable::verify) sees a file that changed length).
    fn size(&self) -> io::Result<u64>;

    /// Fills `buf` with the bytes at `offset`. A storage that has become too
    /// short (a file truncated while open) fails with
    /// [`io::ErrorKind::UnexpectedEof`].
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// All the bytes, when they are in memory: probes then index this slice
    /// instead of calling [`Storage::read_at`], which keeps a probe of an
    /// in-memory or mapped table at a few nanoseconds.
    fn as_bytes(&self) -> Option<&[u8]> {
        None
    }
}

impl<T: AsRef<[u8]>> Storage for T {
    #[inline]
    fn size(&self) -> io::Result<u64> {
        Ok(self.as_ref().len() as u64)
    }

    #[inline]
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let bytes = self.as_ref();
        let src = usize::try_from(offset)
            .ok()
            .and_then(|at| bytes.get(at..)?.get(..buf.len()))
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self.as_ref())
    }
}

/// A tablebase file read with positioned reads (`pread` on Unix): the
/// default storage of [`Tablebase::open`](crate::Tablebase::open) and
/// [`RawTable::open`](crate::raw::RawTable::open).
///
/// Each probe is a system call (a few hundred nanoseconds when the page is
/// cached, against a few nanoseconds for a memory map), and in exchange the
/// file may shrink, grow or be rewritten under the reader without harm to
/// the process: a read past the new end is an [`Error::FileChanged`], and an
/// I/O error of the disk is an [`Error::Io`], where a memory map would raise
/// SIGBUS and kill the host program.
#[derive(Debug)]
pub struct FileStorage {
    #[cfg(any(unix, windows))]
    file: File,
    // No positioned read on this platform: a seek and a read, one thread at a time.
    #[cfg(not(any(unix, windows)))]
    file: std::sync::Mutex<File>,
}

impl FileStorage {
    /// Opens `path` for reading once it is known to be a regular file of
    /// non-zero size: a directory, FIFO, device or socket is refused by name,
    /// and a FIFO is never opened (opening one for reading blocks until a
    /// writer comes).
    pub fn open(path: impl AsRef<Path>) -> Result<FileStorage> {
        let file = open_regular(path.as_ref())?;
        #[cfg(not(any(unix, windows)))]
        let file = std::sync::Mutex::new(file);
        Ok(FileStorage { file })
    }

    #[cfg(any(unix, windows))]
    fn file(&self) -> &File {
        &self.file
    }

    #[cfg(not(any(unix, windows)))]
    fn file(&self) -> std::sync::MutexGuard<'_, File> {
        self.file.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `posix_fadvise` where the platform has it; elsewhere advice is a no-op.
    pub(crate) fn advise(&self, _advice: Advice) -> io::Result<()> {
        #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
        {
            use std::os::unix::io::AsRawFd;
            let advice = match _advice {
                Advice::Random => libc::POSIX_FADV_RANDOM,
                Advice::WillNeed => libc::POSIX_FADV_WILLNEED,
            };
            // SAFETY: a valid open descriptor; offset 0 and length 0 mean
            // the whole file. posix_fadvise returns the error number.
            let rc = unsafe { libc::posix_fadvise(self.file.as_raw_fd(), 0, 0, advice) };
            if rc != 0 {
                return Err(io::Error::from_raw_os_error(rc));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Advice {
    Random,
    WillNeed,
}

impl Storage for FileStorage {
    fn size(&self) -> io::Result<u64> {
        Ok(self.file().metadata()?.len())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.read_exact_at(buf, offset)
        }
        #[cfg(windows)]
        {
            use std::os::windows::fs::FileExt;
            let (mut buf, mut offset) = (buf, offset);
            while !buf.is_empty() {
                match self.file.seek_read(buf, offset) {
                    Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                    Ok(n) => {
                        buf = &mut buf[n..];
                        offset += n as u64;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        }
        #[cfg(not(any(unix, windows)))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut file = self.file();
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(buf)
        }
    }
}

/// What a path is when it is not a regular file; `None` for a regular file.
fn special_kind(t: FileType) -> Option<Error> {
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some(Error::IsDirectory);
    }
    Some(Error::NotAFile {
        kind: crate::error::file_kind(&t),
    })
}

/// Opens a regular file of non-zero size for reading.
fn open_regular(path: &Path) -> Result<File> {
    let shown = Error::quote_path(path);
    let cannot = |e| Error::io(format!("cannot open {shown}"), e);
    // Looked at before opening: opening a FIFO for reading would block
    // until a writer comes, and a terminal could become ours.
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if let Some(e) = special_kind(meta.file_type()) {
        return Err(e);
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // If the path is swapped for a FIFO or a terminal between the check and
    // the open, O_NONBLOCK keeps the open from blocking and O_NOCTTY keeps
    // the terminal from becoming ours; the fstat below then refuses it.
    // Regular files ignore O_NONBLOCK, so positioned reads are unaffected.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if let Some(e) = special_kind(meta.file_type()) {
        return Err(e);
    }
    // A regular file of size 0 is empty, or a special file that does not
    // know its size (/proc, /sys): either way not a tablebase.
    if meta.len() == 0 {
        return Err(Error::Empty);
    }
    Ok(file)
}

/// The error for a failed read of `len` bytes at `offset`.
pub(crate) fn read_error(offset: u64, len: usize, e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        Error::FileChanged { offset, len }
    } else {
        Error::io(
            format!("cannot read {len} bytes at offset {offset} of the tablebase"),
            e,
        )
    }
}

/// Maps a checked regular file (a regular file, opened without following a
/// FIFO's block): the storage of [`Tablebase::open_mmap`](crate::Tablebase),
/// for programs that keep tables of several storages behind one type of
/// their own (the C library does).
///
/// # Safety
///
/// The file must not be truncated or modified in place while the map
/// lives: a truncated mapped file raises SIGBUS on the next access, and
/// bytes changed under the map change answers already checked. Files the
/// generator writes are never modified in place (it writes a new file and
/// renames it over the old).
pub unsafe fn map_file(path: &Path) -> Result<memmap2::Mmap> {
    let file = open_regular(path)?;
    // SAFETY: the contract is forwarded to the caller of `map_file`.
    unsafe { crate::mmap::map_read(&file) }
        .map_err(|e| Error::io(format!("cannot map {}", Error::quote_path(path)), e))
}
