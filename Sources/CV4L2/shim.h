/* V4L2 through the kernel's own header (linux-libc-dev): no library to link. The VIDIOC_* request
   numbers are _IOR/_IOWR macros Swift cannot import, and ioctl is variadic: give both fixed forms. */
#include <errno.h>
#include <linux/videodev2.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
static const unsigned long CV4L2_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CV4L2_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CV4L2_S_FMT = VIDIOC_S_FMT;
static const unsigned long CV4L2_S_PARM = VIDIOC_S_PARM;
static const unsigned long CV4L2_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long CV4L2_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long CV4L2_QBUF = VIDIOC_QBUF;
static const unsigned long CV4L2_DQBUF = VIDIOC_DQBUF;
static const unsigned long CV4L2_STREAMON = VIDIOC_STREAMON;
static const unsigned long CV4L2_STREAMOFF = VIDIOC_STREAMOFF;
static inline int cv4l2_ioctl(int fd, unsigned long request, void *arg) {
    int r;
    do { r = ioctl(fd, request, arg); } while (r == -1 && errno == EINTR);
    return r;
}
static inline unsigned int cv4l2_fourcc(char a, char b, char c, char d) { return v4l2_fourcc(a, b, c, d); }
static inline void *cv4l2_map_failed(void) { return MAP_FAILED; }
