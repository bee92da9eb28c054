! What adfort needs to know of the MPI library's `mpi` module to read code
! that uses it: the names and types of its constants.  Only read by
! adfort (the generated code uses the real module); the values are Open
! MPI's where a declaration needs one (MPI_STATUS_SIZE), placeholders
! otherwise.  The routines have no source here: adfort knows them from
! adfort/mpi_rules.py.
module mpi
  implicit none
  integer, parameter :: MPI_STATUS_SIZE = 6
  integer, parameter :: MPI_ADDRESS_KIND = 8, MPI_OFFSET_KIND = 8, MPI_COUNT_KIND = 8
  integer, parameter :: MPI_INTEGER_KIND = 4
  integer, parameter :: MPI_MAX_PROCESSOR_NAME = 256, MPI_MAX_ERROR_STRING = 256
  integer, parameter :: MPI_SUCCESS = 0, MPI_UNDEFINED = -32766
  integer, parameter :: MPI_SOURCE = 1, MPI_TAG = 2, MPI_ERROR = 3
  integer, parameter :: MPI_PROC_NULL = -2, MPI_ANY_SOURCE = -1, MPI_ANY_TAG = -1
  integer, parameter :: MPI_ROOT = -4
  integer, parameter :: MPI_COMM_WORLD = 0, MPI_COMM_SELF = 1, MPI_COMM_NULL = 2
  integer, parameter :: MPI_REQUEST_NULL = 0, MPI_INFO_NULL = 0, MPI_GROUP_NULL = 0
  integer, parameter :: MPI_DATATYPE_NULL = 0, MPI_OP_NULL = 0, MPI_WIN_NULL = 0
  integer, parameter :: MPI_ERRORS_ARE_FATAL = 1, MPI_ERRORS_RETURN = 2
  integer, parameter :: MPI_THREAD_SINGLE = 0, MPI_THREAD_FUNNELED = 1
  integer, parameter :: MPI_THREAD_SERIALIZED = 2, MPI_THREAD_MULTIPLE = 3
  integer, parameter :: MPI_BYTE = 1, MPI_PACKED = 2, MPI_CHARACTER = 5
  integer, parameter :: MPI_LOGICAL = 6, MPI_INTEGER = 7, MPI_INTEGER1 = 8
  integer, parameter :: MPI_INTEGER2 = 9, MPI_INTEGER4 = 10, MPI_INTEGER8 = 11
  integer, parameter :: MPI_REAL = 13, MPI_REAL4 = 14, MPI_REAL8 = 15, MPI_REAL16 = 16
  integer, parameter :: MPI_DOUBLE_PRECISION = 17, MPI_COMPLEX = 18
  integer, parameter :: MPI_DOUBLE_COMPLEX = 22, MPI_2REAL = 25
  integer, parameter :: MPI_2DOUBLE_PRECISION = 26, MPI_2INTEGER = 27
  integer, parameter :: MPI_MAX = 1, MPI_MIN = 2, MPI_SUM = 3, MPI_PROD = 4
  integer, parameter :: MPI_LAND = 5, MPI_BAND = 6, MPI_LOR = 7, MPI_BOR = 8
  integer, parameter :: MPI_LXOR = 9, MPI_BXOR = 10, MPI_MAXLOC = 11, MPI_MINLOC = 12
  integer, parameter :: MPI_REPLACE = 13
  integer :: MPI_IN_PLACE, MPI_BOTTOM
  integer :: MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
  integer :: MPI_STATUSES_IGNORE(MPI_STATUS_SIZE, 1)
  integer :: MPI_ERRCODES_IGNORE(1)
end module mpi
